function toggleList(el) {
  var list = el.parentElement.querySelector("ul");
  if (!list) { return; }
  list.style.display = list.style.display === "none" ? "block" : "none";
  el.classList.toggle("collapsed");
}

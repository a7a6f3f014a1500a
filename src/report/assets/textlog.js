// log.html?cid=[0/1] shows only the lines of that compile id (our own script; no network).
(function () {
  var cid = new URLSearchParams(window.location.search).get("cid");
  if (!cid) return;
  var lines = document.querySelectorAll(".log > div");
  var shown = 0;
  for (var i = 0; i < lines.length; i++) {
    if (lines[i].getAttribute("data-cid") !== cid) lines[i].classList.add("hidden");
    else shown++;
  }
  var f = document.getElementById("filter");
  if (f) f.textContent = "Showing the " + shown + " lines of " + cid + ". ";
  var all = document.createElement("a");
  all.href = "log.html";
  all.textContent = "Show every line";
  if (f) f.appendChild(all);
})();

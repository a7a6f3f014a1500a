document.addEventListener("DOMContentLoaded", function () {
  var query = window.location.search;
  if (!query) { return; }
  var links = document.querySelectorAll("a[href]");
  for (var i = 0; i < links.length; i++) {
    var href = links[i].getAttribute("href");
    if (/^(https?:\/\/|#)/.test(href)) { continue; }
    var hash = "";
    var h = href.indexOf("#");
    if (h >= 0) { hash = href.slice(h); href = href.slice(0, h); }
    links[i].setAttribute("href", href + (href.indexOf("?") >= 0 ? "&" + query.slice(1) : query) + hash);
  }
});

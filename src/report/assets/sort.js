/* Sortable tables: a click on a header of a table.sortable orders its rows by that column
 * (numbers by value, "-" last), a second click reverses. Keyboard: Enter or Space on the header. */
document.addEventListener("DOMContentLoaded", function () {
  var tables = document.querySelectorAll("table.sortable");
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      var heads = table.querySelectorAll("thead th");
      for (var c = 0; c < heads.length; c++) {
        (function (th, col) {
          th.tabIndex = 0;
          th.setAttribute("role", "button");
          var sort = function () {
            var body = table.tBodies[0];
            var rows = Array.prototype.slice.call(body.rows);
            var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
            var key = function (row) {
              var cell = row.cells[col];
              var v = cell ? (cell.getAttribute("data-value") || cell.textContent) : "";
              var n = parseFloat(v);
              return isNaN(n) ? { num: false, v: v } : { num: true, v: n };
            };
            rows.sort(function (a, b) {
              var x = key(a), y = key(b);
              if (x.num !== y.num) { return x.num ? -1 : 1; }
              if (x.v < y.v) { return -dir; }
              if (x.v > y.v) { return dir; }
              return 0;
            });
            for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
            th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
            for (var r = 0; r < rows.length; r++) { body.appendChild(rows[r]); }
          };
          th.addEventListener("click", sort);
          th.addEventListener("keydown", function (e) {
            if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
          });
        })(heads[c], c);
      }
    })(tables[t]);
  }
});

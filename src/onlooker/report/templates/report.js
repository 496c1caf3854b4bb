// Sortable tables: a header button sorts its column (click, Enter or Space); again reverses.
(function () {
  "use strict";
  function key(cell, numeric) {
    var raw = cell.getAttribute("data-v");
    if (raw === null) raw = cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? -Infinity : n;
  }
  function sort(button) {
    var th = button.closest("th");
    var table = th.closest("table");
    var body = table.tBodies[0];
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = button.getAttribute("data-type") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows).map(function (row) {
      return [key(row.cells[column], numeric), row];
    });
    rows.sort(function (a, b) {
      var order = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
      return ascending ? order : -order;
    });
    var fragment = document.createDocumentFragment();
    rows.forEach(function (pair) { fragment.appendChild(pair[1]); });
    body.appendChild(fragment);
    Array.prototype.forEach.call(th.parentNode.children, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("th button[data-type]") : null;
    if (button) sort(button);
  });
})();

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
    page(table, 0);
    Array.prototype.forEach.call(th.parentNode.children, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  // Long tables show one page of rows at a time (the rest are `hidden`, so not laid out).
  function page(table, number) {
    var size = parseInt(table.getAttribute("data-page-size") || "0", 10);
    if (!size) return;
    var rows = table.tBodies[0].rows;
    var last = Math.max(Math.ceil(rows.length / size) - 1, 0);
    number = Math.min(Math.max(number, 0), last);
    for (var i = 0; i < rows.length; i++) {
      rows[i].hidden = i < number * size || i >= (number + 1) * size;
    }
    table.setAttribute("data-page", String(number));
    var pager = document.getElementById(table.getAttribute("data-pager"));
    if (!pager) return;
    pager.querySelector("[data-step='-1']").disabled = number === 0;
    pager.querySelector("[data-step='1']").disabled = number === last;
    pager.querySelector("output").textContent = "rows " + (number * size + 1) + "–" +
      Math.min((number + 1) * size, rows.length) + " of " + rows.length;
  }
  document.addEventListener("click", function (event) {
    if (!event.target.closest) return;
    var button = event.target.closest("th button[data-type]");
    if (button) { sort(button); return; }
    var step = event.target.closest(".pager button[data-step]");
    if (step) {
      var table = document.getElementById(step.closest(".pager").getAttribute("data-for"));
      page(table, parseInt(table.getAttribute("data-page") || "0", 10) +
        parseInt(step.getAttribute("data-step"), 10));
    }
  });
})();

// Sortable report tables: a click on a column's header sorts the rows by it,
// a second click reverses. Figures sort by value ("1.2 ms" after "900 µs"),
// other cells by text; the first row is the header. A filter box above each
// keeps the rows that contain what is typed in it (any case).
(function () {
  "use strict";
  const UNITS = {
    ns: 1, "µs": 1e3, us: 1e3, ms: 1e6, s: 1e9,
    B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4,
    KB: 1e3, MB: 1e6, GB: 1e9, "GB/s": 1, "%": 1, "×": 1, x: 1,
  };
  const FIGURE = /^\s*(-?[\d,]*\.?\d+(?:e[+-]?\d+)?)\s*([^\s\d(]*)/i;

  function value(cell) {
    const match = FIGURE.exec(cell.textContent);
    if (!match) return null;
    const unit = match[2];
    if (unit && !(unit in UNITS)) return null;
    return Number(match[1].replace(/,/g, "")) * (unit ? UNITS[unit] : 1);
  }

  function sortBy(table, column, header) {
    const rows = Array.from(table.rows).slice(1);
    const ascending = header.getAttribute("aria-sort") !== "ascending";
    const keyed = rows.map((row) => {
      const cell = row.cells[column];
      return { row, number: cell ? value(cell) : null, text: cell ? cell.textContent : "" };
    });
    const numeric = keyed.every((k) => k.number !== null);
    keyed.sort((a, b) => {
      const order = numeric ? a.number - b.number : a.text.localeCompare(b.text);
      return ascending ? order : -order;
    });
    for (const th of table.rows[0].cells) th.removeAttribute("aria-sort");
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    const body = rows.length ? rows[0].parentNode : table;
    for (const k of keyed) body.appendChild(k.row);
  }

  function addFilter(table) {
    const box = document.createElement("input");
    box.type = "search";
    box.className = "table-filter";
    box.placeholder = "filter rows";
    box.setAttribute("aria-label", "filter the rows of the table below");
    box.addEventListener("input", () => {
      const query = box.value.toLowerCase();
      for (const row of Array.from(table.rows).slice(1)) {
        row.hidden = query !== "" && !row.textContent.toLowerCase().includes(query);
      }
    });
    table.parentNode.insertBefore(box, table);
  }

  for (const table of document.querySelectorAll("table.sortable")) {
    if (table.rows.length < 3) continue;
    addFilter(table);
    Array.from(table.rows[0].cells).forEach((header, column) => {
      header.title = "sort by this column";
      header.style.cursor = "pointer";
      header.addEventListener("click", () => sortBy(table, column, header));
    });
  }
})();

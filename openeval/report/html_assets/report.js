/* OpenEval HTML report: filtering and sorting of the cases table. Inlined by
   openeval/report/html.py. The table is complete without this script: it only shows the
   controls, hides rows and reorders them. The filter state lives in the URL fragment, so
   report.html#failed or report.html#status=not-passed&check=NAME&q=TEXT&sort=NAME opens
   filtered and sorted (sort=case, status or a check name, worst first; sort=-NAME reverses),
   and report.html#c3 opens the view of the case with index 3. */
(function () {
  "use strict";
  var table = document.getElementById("cases");
  var controls = document.getElementById("controls");
  if (!table || !controls) { return; }
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var status = document.getElementById("f-status");
  var check = document.getElementById("f-check");
  var text = document.getElementById("f-text");
  var shown = document.getElementById("f-shown");
  var STATUS = { "v-pass": "passed", "v-fail": "failed", "v-error": "error", "v-na": "n.a." };
  var RANK = { "error": 0, "failed": 1, "passed": 2, "n.a.": 3, "": 4 };
  var haystacks = null;
  var sorting = "";  // the sort= value in force: a column name, "-" first when reversed

  rows.forEach(function (row, i) { row.setAttribute("data-order", String(i)); });

  function cellStatus(row, column) {
    var cell = row.cells[column];
    if (!cell) { return ""; }
    for (var name in STATUS) {
      if (cell.classList.contains(name)) { return STATUS[name]; }
    }
    return "";
  }

  function checkColumn(name) {
    for (var i = 2; i < heads.length; i++) {
      if (heads[i].getAttribute("data-check") === name) { return i; }
    }
    return -1;
  }

  function columnOf(name) {
    if (name === "case") { return 0; }
    if (name === "status") { return 1; }
    return checkColumn(name);
  }

  function columnName(column) {
    if (column < 2) { return column === 0 ? "case" : "status"; }
    return heads[column].getAttribute("data-check");
  }

  function caseId(row) {
    return row.cells[0].getElementsByTagName("a")[0].getAttribute("href").slice(1);
  }

  function haystack(row) {
    if (haystacks === null) {
      // Built on the first text search only: the case view's text is searched too, so a
      // reviewer can find every case whose details mention a tool or a value.
      haystacks = rows.map(function (r) {
        var view = document.getElementById(caseId(r));
        return (r.cells[0].textContent + " " + (view ? view.textContent : "")).toLowerCase();
      });
    }
    return haystacks[Number(row.getAttribute("data-order"))];
  }

  function wanted(got, want) {
    if (!want) { return true; }
    if (want === "not-passed") { return got === "failed" || got === "error"; }
    return got === want;
  }

  function apply(writeHash) {
    var column = check.value ? checkColumn(check.value) : -1;
    var needle = text.value.trim().toLowerCase();
    var count = 0;
    rows.forEach(function (row) {
      var got = column >= 0 ? cellStatus(row, column) : row.getAttribute("data-status");
      var ok = wanted(got, status.value) && (!needle || haystack(row).indexOf(needle) >= 0);
      row.hidden = !ok;
      if (ok) { count += 1; }
    });
    shown.textContent = count === rows.length
      ? "all " + rows.length + " cases shown"
      : count + " of " + rows.length + " cases shown";
    if (writeHash) {
      var params = new URLSearchParams();
      if (status.value) { params.set("status", status.value); }
      if (check.value) { params.set("check", check.value); }
      if (needle) { params.set("q", text.value.trim()); }
      if (sorting) { params.set("sort", sorting); }
      var fragment = params.toString();
      history.replaceState(null, "", fragment ? "#" + fragment : location.pathname);
    }
  }

  function hasOption(select, value) {
    return Array.prototype.some.call(select.options, function (o) { return o.value === value; });
  }

  function openCase(id) {
    var view = document.getElementById(id);
    if (view && view.tagName === "DETAILS") {
      view.open = true;
      view.classList.add("hl");
      view.scrollIntoView();
    }
  }

  function readHash() {
    var fragment = location.hash.slice(1);
    if (/^c[0-9]+$/.test(fragment)) { openCase(fragment); return; }
    if (hasOption(status, fragment)) { fragment = "status=" + fragment; }
    var params = new URLSearchParams(fragment);
    var want = params.get("status") || "";
    var name = params.get("check") || "";
    status.value = hasOption(status, want) ? want : "";
    check.value = hasOption(check, name) ? name : "";
    text.value = params.get("q") || "";
    var order = params.get("sort") || "";
    var reversed = order.charAt(0) === "-";
    var column = columnOf(reversed ? order.slice(1) : order);
    if (column >= 0) { sortBy(column, reversed); }
    apply(false);
  }

  function sortKey(row, column) {
    if (column === 0) { return [row.cells[0].textContent, 0]; }
    var got = column === 1 ? row.getAttribute("data-status") : cellStatus(row, column);
    // The cell ends with the primary score as the table shows it ("0.67"); words sort as 0.
    var score = parseFloat(row.cells[column].textContent.split(" ").pop());
    return [RANK[got], isNaN(score) ? 0 : score];
  }

  function sortBy(column, descending) {
    var head = heads[column];
    sorting = (descending ? "-" : "") + columnName(column);
    heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
    head.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var keyed = rows.map(function (row) {
      return { row: row, key: sortKey(row, column), order: Number(row.getAttribute("data-order")) };
    });
    keyed.sort(function (a, b) {
      for (var i = 0; i < 2; i++) {
        if (a.key[i] < b.key[i]) { return descending ? 1 : -1; }
        if (a.key[i] > b.key[i]) { return descending ? -1 : 1; }
      }
      return a.order - b.order;
    });
    var body = table.tBodies[0];
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }

  heads.forEach(function (head, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.title = "sort by this column";
    while (head.firstChild) { button.appendChild(head.firstChild); }
    head.appendChild(button);
    button.addEventListener("click", function () {
      sortBy(column, head.getAttribute("aria-sort") === "ascending");
      apply(true);
    });
  });
  [status, check].forEach(function (el) {
    el.addEventListener("change", function () { apply(true); });
  });
  text.addEventListener("input", function () { apply(true); });
  window.addEventListener("hashchange", readHash);
  controls.hidden = false;
  readHash();
}());

// Receipt page behaviour: quantities are editable and every dependent figure is recalculated from them.
(function () {
  "use strict";

  var TAX_PERCENT = 8;

  var printButton = document.getElementById("print-btn");
  printButton.addEventListener("click", function () {
    window.print();
  });

  // "$1,249.00" -> 124900 (cents, an integer)
  function parseCents(text) {
    var digits = String(text).replace(/[^0-9.]/g, "");
    var parts = digits.split(".");
    var cents = (parts[1] || "").concat("00").slice(0, 2);
    return parseInt(parts[0] || "0", 10) * 100 + parseInt(cents, 10);
  }

  // 124900 -> "$1,249.00"
  function formatMoney(cents) {
    var whole = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    var rest = String(cents % 100).padStart(2, "0");
    return "$" + whole + "." + rest;
  }

  // Blank, negative or non-numeric quantities count as 0.
  function quantity(input) {
    var value = Number(input.value);
    if (input.value.trim() === "" || !isFinite(value) || value < 0) return 0;
    return Math.floor(value);
  }

  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.line")).map(function (row) {
    return {
      input: row.querySelector('input[name="qty"]'),
      priceCents: parseCents(row.querySelector(".price").textContent),
      totalCell: row.querySelector(".line-total")
    };
  });

  function recalculate() {
    var subtotal = 0;
    var units = 0;
    rows.forEach(function (row) {
      var qty = quantity(row.input);
      var lineCents = qty * row.priceCents;
      row.totalCell.textContent = formatMoney(lineCents);
      subtotal += lineCents;
      units += qty;
    });
    var tax = Math.round((subtotal * TAX_PERCENT) / 100);
    document.getElementById("subtotal").textContent = formatMoney(subtotal);
    document.getElementById("tax").textContent = formatMoney(tax);
    document.getElementById("total").textContent = formatMoney(subtotal + tax);
    document.getElementById("item-count").textContent = units + (units === 1 ? " item" : " items");
  }

  rows.forEach(function (row) {
    row.input.addEventListener("input", recalculate);
    row.input.addEventListener("change", recalculate);
  });
  recalculate();
})();

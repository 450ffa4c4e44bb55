// Receipt page behaviour. The figures in index.html are typed in by hand for now.
(function () {
  "use strict";

  var printButton = document.getElementById("print-btn");
  printButton.addEventListener("click", function () {
    window.print();
  });
})();

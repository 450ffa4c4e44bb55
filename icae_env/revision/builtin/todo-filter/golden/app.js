// Weekend shopping list: items come from items.json; changes live in memory only.
(function () {
  "use strict";

  var items = [];
  var list = document.getElementById("list");
  var form = document.getElementById("add-form");
  var input = document.getElementById("new-item");
  var summary = document.getElementById("summary");
  var filter = "all";
  var filterButtons = Array.prototype.slice.call(document.querySelectorAll(".filter"));

  var matches = {
    all: function () { return true; },
    open: function (item) { return !item.done; },
    done: function (item) { return item.done; }
  };

  function nextId() {
    return items.reduce(function (max, item) { return Math.max(max, item.id); }, 0) + 1;
  }

  function renderItem(item) {
    var li = document.createElement("li");
    li.className = "item" + (item.done ? " done" : "");
    li.dataset.id = String(item.id);

    var label = document.createElement("label");
    var box = document.createElement("input");
    box.type = "checkbox";
    box.className = "toggle";
    box.checked = item.done;
    box.addEventListener("change", function () {
      item.done = box.checked;
      render();
    });

    var text = document.createElement("span");
    text.className = "text";
    text.textContent = item.text;

    label.appendChild(box);
    label.appendChild(text);
    li.appendChild(label);
    return li;
  }

  function render() {
    list.textContent = "";
    items.filter(matches[filter]).forEach(function (item) { list.appendChild(renderItem(item)); });
    var done = items.filter(function (item) { return item.done; }).length;
    summary.textContent = done + " of " + items.length + " done";

    document.getElementById("count-all").textContent = String(items.length);
    document.getElementById("count-open").textContent = String(items.length - done);
    document.getElementById("count-done").textContent = String(done);
    filterButtons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.filter === filter));
    });
  }

  filterButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      filter = button.dataset.filter;
      render();
    });
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    items.push({ id: nextId(), text: text, done: false });
    input.value = "";
    render();
    input.focus();
  });

  fetch("items.json")
    .then(function (response) { return response.json(); })
    .then(function (data) {
      items = data;
      render();
    })
    .catch(function () {
      summary.textContent = "Could not load the list.";
    });
})();

// Utilities for the page.
var config = { debug: true };

function init() {
  document.addEventListener("load", onLoad);
}

/* Called when loaded. */
var onLoad = function (event) {
  console.log(event);
};

Widget.prototype.render = function () {
  return this.el;
};

function* ids() {
  yield 1;
}

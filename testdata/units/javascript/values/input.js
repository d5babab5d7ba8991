const express = require("express");

function list(req, res) {
  res.send([]);
}

class Panel {
  constructor(el) {
    el.addEventListener("click", this.onClick);
    el.onkeyup = this.onKey;
  }
  onClick(event) {}
  onKey(event) {}
}

const app = express();
app.get("/items", list);
app.use(function logger(req, res, next) {
  next();
});
const routes = { list: list, show };
module.exports = { app, routes };

function defineGetter(obj, name, getter) {
  Object.defineProperty(obj, name, { get: getter });
}

defineGetter(app, "path", function path() {
  return this.url;
});

import { EventEmitter } from "events";
import path from "node:path";
const fs = require("fs");

export const MAX = 10;
let counter = 0;

/**
 * A user account.
 */
export class User extends EventEmitter {
  #secret = 1;
  name = "anon";
  static count = 0;

  constructor(name) {
    super();
    this.name = name;
  }

  /** Logs in. */
  async login(password) {
    return check(this.name, password);
  }

  get title() {
    return this.name.toUpperCase();
  }

  #hash() {
    return this.#secret;
  }

  static create(name) {
    return new User(name);
  }

  onClick = () => {
    this.emit("click");
  };
}

function check(name, password) {
  const helper = (x) => x.trim();
  return helper(name) === password;
}

export default function main() {
  const u = User.create("x");
  u.login("y").then(done);
}

const api = {
  fetch() {
    return fs.readFileSync(path.join("a", "b"));
  },
  close: () => {},
};

export { check };

/** Logs in. */
F_ async login(password) {
  return check(this.name, password);
}

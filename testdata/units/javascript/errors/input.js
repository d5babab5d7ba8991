function ok() {
  return 1;
}

function broken( {
  return 2;
}

class After {
  method() {
    return ok();
  }
}

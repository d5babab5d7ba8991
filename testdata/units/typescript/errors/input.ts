export function ok(): number {
  return 1;
}

export function broken(x: number {
  return x;
}

export class After {
  run(): number {
    return ok();
  }
}

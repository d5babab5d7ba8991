/** A user of the system. */
interface User {
  name: string;
  age: number;
}

/** Formats a user. */
export function show(u: User): string {
  const years: number = u.name;
  return `${u.nme} (${years})`;
}

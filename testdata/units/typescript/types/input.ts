import type { Request } from "express";
import * as db from "./db";

/** Someone who can log in. */
export interface User extends Named, Timestamped<Date> {
  readonly id: number;
  name?: string;
  /** Greets the user. */
  greet(other: User): string;
}

interface Named {
  name?: string;
}

export type Id = string | number;

export enum Color {
  Red,
  Green = "green",
}

const enum Flags { A = 1, B = 2 }

export namespace Geometry {
  export function area(w: number, h: number): number {
    return w * h;
  }
  function hidden(): void {}
}

declare module "legacy" {
  export function old(): void;
}

export function parse(x: string): number;
export function parse(x: number): number;
export function parse(x: any): number {
  return Number(x);
}

export const handler = async (req: Request): Promise<void> => {
  await db.save(req.body);
};

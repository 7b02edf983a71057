import type { Cursor } from "./types.js";

export const ZERO_CURSOR: Cursor = Object.freeze({ rev: 0, path: null }) as Cursor;

/**
 * Orders cursors: by rev; within a rev a path comes before `null` (the whole
 * rev), and paths compare with JavaScript `<`.
 */
export function compareCursors(a: Cursor, b: Cursor): number {
  if (a.rev !== b.rev) return a.rev < b.rev ? -1 : 1;
  if (a.path === b.path) return 0;
  if (a.path === null) return 1;
  if (b.path === null) return -1;
  return a.path < b.path ? -1 : 1;
}

export function maxCursor(a: Cursor, b: Cursor): Cursor {
  return compareCursors(a, b) >= 0 ? a : b;
}

export function minCursor(a: Cursor, b: Cursor): Cursor {
  return compareCursors(a, b) <= 0 ? a : b;
}

/** Rejects anything that is not a well-formed cursor (wire input). */
export function checkCursor(value: unknown, name: string): Cursor {
  const cursor = value as Cursor;
  if (
    value === null ||
    typeof value !== "object" ||
    !Number.isSafeInteger(cursor.rev) ||
    cursor.rev < 0 ||
    !(cursor.path === null || typeof cursor.path === "string")
  ) {
    throw new TypeError(`${name} must be a cursor {rev, path}`);
  }
  return { rev: cursor.rev, path: cursor.path };
}

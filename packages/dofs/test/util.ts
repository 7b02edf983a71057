/** Small helpers shared by the dofs test files (runtime-neutral). */
import { expect } from "vitest";

export { patternBytes } from "./bytes.js";

export async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

export async function piecesOf(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const sizes: number[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) sizes.push(part.byteLength);
  return sizes;
}

/** Asserts that `promise` rejects with a WorkspaceFsError carrying `code`. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: "WorkspaceFsError", code });
}

/** A stream that yields `data` in the given ragged piece sizes (cycled). */
export function raggedStream(data: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= data.byteLength) {
        controller.close();
        return;
      }
      const size = sizes[i++ % sizes.length] as number;
      controller.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
}

export function revOf(db: { one<T>(sql: string): T | undefined }): number {
  return Number(db.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'rev'")?.v);
}

/** Byte equality without vitest's element-by-element diff (slow on megabytes). */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.byteLength).toBe(expected.byteLength);
  const at = actual.findIndex((byte, i) => byte !== expected[i]);
  expect(at, "first differing byte").toBe(-1);
}

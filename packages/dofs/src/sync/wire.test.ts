import { describe, expect, it } from "vitest";
import { fromHex, hexInto } from "../hex.js";
import { checkEntry } from "./entry.js";
import type { ChangeEntry } from "./types.js";
import { fromWire, type StoredChange, toWire } from "./wire.js";

const hexes = ["00".repeat(32), "ab".repeat(32), "0123456789abcdef".repeat(4)];
const stored: StoredChange = {
  kind: "file",
  rev: 7,
  path: "/f",
  mode: 0o644,
  mtime: 1,
  size: 3 * 524_288,
  chunks: hexes.map((hash) => ({ hash, size: 524_288 })),
};

describe("change entries on the wire", () => {
  it("a file's chunk hashes go out as 32-byte Uint8Arrays and come back as the same hex", () => {
    const wire = toWire(stored);
    expect(wire.kind).toBe("file");
    const chunks = (wire as Extract<ChangeEntry, { kind: "file" }>).chunks;
    expect(chunks.map((chunk) => [...chunk.hash])).toEqual(hexes.map((hex) => [...fromHex(hex)]));
    expect(chunks.every((chunk) => chunk.hash.byteLength === 32 && chunk.size === 524_288)).toBe(true);
    // One buffer for the whole list: each hash is a view into it.
    expect(new Set(chunks.map((chunk) => chunk.hash.buffer)).size).toBe(1);
    expect(checkEntry(wire)).toBe(wire);
    expect(fromWire(wire)).toEqual(stored);
    expect(stored.chunks[0]?.hash).toBe("00".repeat(32)); // the stored entry is left as it was
  });

  it("entries without chunks pass through both ways unchanged", () => {
    const entries: ChangeEntry[] = [
      { kind: "dir", rev: 1, path: "/d", mode: 0o755, mtime: 1 },
      { kind: "symlink", rev: 1, path: "/l", target: "d", mode: 0o777, mtime: 1 },
      { kind: "delete", rev: 2, path: "/gone" },
      { kind: "file", rev: 3, path: "/empty", mode: 0o644, mtime: 1, size: 0, chunks: [] },
    ];
    for (const entry of entries) {
      expect(toWire(fromWire(entry))).toEqual(entry);
    }
  });

  it("checkEntry refuses a hash that is hex text (the old wire) or not 32 bytes", () => {
    const withHash = (hash: unknown) => ({ ...stored, chunks: [{ hash, size: 3 }], size: 3 });
    expect(() => checkEntry(withHash("ab".repeat(32)))).toThrow(/bad chunk/);
    expect(() => checkEntry(withHash(new Uint8Array(31)))).toThrow(/bad chunk/);
    expect(() => checkEntry(withHash([...new Uint8Array(32)]))).toThrow(/bad chunk/);
    expect(() => checkEntry(withHash(new Uint8Array(32)))).not.toThrow();
  });

  it("hexInto writes in place and refuses what is not hex", () => {
    const into = new Uint8Array(4).fill(9);
    hexInto("aBff", into, 1);
    expect([...into]).toEqual([9, 0xab, 0xff, 9]);
    expect(() => hexInto("zz", into, 0)).toThrow(TypeError);
    expect(() => hexInto("abc", into, 0)).toThrow(TypeError);
    expect(() => hexInto("é0", into, 0)).toThrow(TypeError);
    expect(() => hexInto("aabbcc", into, 2)).toThrow(TypeError); // past the end
    expect([...into]).toEqual([9, 0xab, 0xff, 9]);
  });
});

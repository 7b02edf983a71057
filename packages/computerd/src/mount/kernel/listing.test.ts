/**
 * The offsets of listings without OPENDIR (listing.ts): a function of the
 * name, so a listing paged while its directory changes never repeats or
 * skips an entry that stayed. Checked against a model: random names added
 * and removed between pages of random size.
 */
import { describe, expect, test } from "vitest";
import type { FuseStat } from "../mount-fs.js";
import { nameHash, ordered, startOf } from "./listing.js";

function stat(ino: number): FuseStat {
  return {
    mode: 0o100644,
    uid: 0,
    gid: 0,
    size: 0,
    nlink: 1,
    ino,
    blksize: 4096,
    blocks: 0,
    atime: 0,
    mtime: 0,
    ctime: 0,
    atimeNsec: 0,
    mtimeNsec: 0,
    ctimeNsec: 0,
  };
}

/** What readdirPlus answers for these names: `.` and `..` first. */
function read(names: Iterable<string>): { names: string[]; stats: FuseStat[] } {
  const all = [".", "..", ...names];
  return { names: all, stats: all.map((_, i) => stat(i + 1)) };
}

/** A seeded generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe("listing offsets without OPENDIR", () => {
  test("`.` and `..` come first at 1 and 2; the rest in increasing offsets a safe integer can hold", () => {
    const listing = ordered(read(["b", "a", "c", "package.json", "ü"]), 0, 0);
    expect(listing.names.slice(0, 2)).toEqual([".", ".."]);
    expect(listing.offsets.slice(0, 2)).toEqual([1, 2]);
    expect([...listing.names].sort()).toEqual([".", "..", "a", "b", "c", "package.json", "ü"]);
    for (let i = 1; i < listing.offsets.length; i++) {
      expect(listing.offsets[i] as number).toBeGreaterThan(listing.offsets[i - 1] as number);
    }
    for (const offset of listing.offsets) expect(Number.isSafeInteger(offset)).toBe(true);
    // Each entry's stat goes with it.
    const at = listing.names.indexOf("package.json");
    expect(listing.stats[at]?.ino).toBe(6);
  });

  test("an entry's offset is its name's alone, whatever else the directory holds", () => {
    const small = ordered(read(["x", "y"]), 0, 0);
    const big = ordered(read(Array.from({ length: 500 }, (_, i) => `f${i}`).concat(["x", "y"])), 0, 0);
    const offsetOf = (listing: typeof small, name: string) => listing.offsets[listing.names.indexOf(name)];
    expect(offsetOf(big, "x")).toBe(offsetOf(small, "x"));
    expect(offsetOf(big, "y")).toBe(offsetOf(small, "y"));
  });

  test("startOf: 0 starts at `.`, 1 at `..`, 2 at the first entry, any entry's offset just after it", () => {
    const listing = ordered(read(["a", "b", "c"]), 0, 0);
    expect(startOf(listing.offsets, 0)).toBe(0);
    expect(startOf(listing.offsets, 1)).toBe(1);
    expect(startOf(listing.offsets, 2)).toBe(2);
    for (let i = 2; i < listing.offsets.length; i++)
      expect(startOf(listing.offsets, listing.offsets[i] as number)).toBe(i + 1);
    // An offset whose entry is gone resumes at the next one still there.
    const without = ordered(read(listing.names.slice(2).filter((name) => name !== listing.names[3])), 0, 0);
    expect(without.names[startOf(without.offsets, listing.offsets[3] as number)]).toBe(listing.names[4]);
  });

  test("the hash spreads names that differ in one character and fills 49 bits", () => {
    const hashes = new Set(Array.from({ length: 20_000 }, (_, i) => nameHash(`file-${i}.js`)));
    expect(hashes.size).toBe(20_000);
    let top = 0;
    for (const hash of hashes) top = Math.max(top, hash);
    expect(top).toBeLessThan(2 ** 49);
    expect(top).toBeGreaterThan(2 ** 48);
  });

  test.each([1, 2, 3, 4, 5])(
    "seed %i: pages of a directory changing between them never repeat or skip an entry that stayed",
    (seed) => {
      const next = random(seed);
      for (let round = 0; round < 40; round++) {
        const names = new Set(Array.from({ length: Math.floor(next() * 300) }, (_, i) => `n${i}-${seed}`));
        const initial = new Set(names);
        const seen: string[] = [];
        let offset = 0;
        let made = 0;
        for (;;) {
          const listing = ordered(read(names), 0, 0);
          const from = startOf(listing.offsets, offset);
          if (from >= listing.names.length) break;
          const take = 1 + Math.floor(next() * 40);
          const page = listing.names.slice(from, from + take);
          seen.push(...page);
          offset = listing.offsets[from + page.length - 1] as number;
          // Between pages: some names go, some come.
          for (const name of [...names]) if (next() < 0.05) names.delete(name);
          for (let i = 0; i < 5; i++) if (next() < 0.5) names.add(`new${made++}-${seed}`);
        }
        expect(new Set(seen).size).toBe(seen.length);
        const listed = new Set(seen);
        for (const name of initial) if (names.has(name)) expect(listed.has(name)).toBe(true);
        expect(seen.slice(0, 2)).toEqual([".", ".."]);
      }
    },
  );
});

/**
 * A seeded PRNG for the sync fuzz tests (runtime-neutral). mulberry32: tiny,
 * fast and good enough to pick operations; the seed alone replays a run.
 */
import { CHUNK_SIZE } from "../src/constants.js";
import { patternBytes } from "./util.js";

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K;
}

export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)] as (typeof items)[number],
    weighted(weights) {
      const keys = Object.keys(weights) as (keyof typeof weights)[];
      let roll = next() * keys.reduce((n, k) => n + weights[k], 0);
      for (const key of keys) {
        roll -= weights[key];
        if (roll < 0) return key;
      }
      return keys[keys.length - 1] as keyof typeof weights;
    },
  };
}

/** One pseudo-random base every big file is cut from, so files share chunk-aligned prefixes. */
const BASE = patternBytes(3 * CHUNK_SIZE, 77);

/**
 * A multi-chunk file of up to 1.5 MiB (3 chunks) from a handful of lengths
 * and variants: most chunks are shared with other big files (dedup), and the
 * variant byte makes the last chunk differ.
 */
export function bigContent(rng: Random): { bytes: Uint8Array; label: string } {
  const length = rng.pick([CHUNK_SIZE + 100, 2 * CHUNK_SIZE, 2 * CHUNK_SIZE + 7, 3 * CHUNK_SIZE]);
  const variant = rng.int(3);
  const bytes = BASE.slice(0, length);
  bytes[length - 1] = ((bytes[length - 1] as number) + variant) & 0xff;
  return { bytes, label: `big(${length},v${variant})` };
}

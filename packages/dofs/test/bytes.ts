/** Deterministic content for tests and benchmarks (no vitest import, so bench bundles can use it). */

/** Deterministic pseudo-random bytes (xorshift32), so chunk tests need no crypto. */
export function patternBytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

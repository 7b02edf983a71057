import { describe, expect, it } from "vitest";
import { toHex } from "./hex.js";
import { sha256HexSync } from "./sha256-sync.js";

describe("sha256HexSync", () => {
  it("matches Web Crypto at every padding boundary and on a large input", async () => {
    const lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 512 * 1024 + 7];
    for (const length of lengths) {
      const bytes = new Uint8Array(length);
      for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) & 0xff;
      const native = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
      expect(sha256HexSync(bytes), `length ${length}`).toBe(native);
    }
    // A view into a larger buffer hashes only its own bytes.
    const big = new Uint8Array(100).fill(9);
    const view = big.subarray(10, 20);
    expect(sha256HexSync(view)).toBe(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", view.slice()))));
  });
});

/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, for the synchronous write paths
 * (`SQLiteWorkspaceProvider`'s `*Sync` methods) on a platform whose only
 * native hash is async Web Crypto (workerd). Slower than native by ~10×;
 * everything else uses `sha256Hex` (native, async) or the driver's own.
 */
import { toHex } from "./hex.js";

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

export function sha256HexSync(bytes: Uint8Array): string {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  // Message, a 1 bit, zeros, then the bit length as a 64-bit big-endian number: a multiple of 64 bytes.
  const blocks = Math.ceil((bytes.byteLength + 9) / 64);
  const tail = new Uint8Array(128);
  const fullBlocks = Math.floor(bytes.byteLength / 64);
  const rest = bytes.byteLength - fullBlocks * 64;
  tail.set(bytes.subarray(fullBlocks * 64));
  tail[rest] = 0x80;
  const tailView = new DataView(tail.buffer);
  const bits = bytes.byteLength * 8;
  const tailLength = (blocks - fullBlocks) * 64;
  tailView.setUint32(tailLength - 8, Math.floor(bits / 2 ** 32));
  tailView.setUint32(tailLength - 4, bits >>> 0);
  const w = new Uint32Array(64);
  const input = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let block = 0; block < blocks; block++) {
    const [view, base] = block < fullBlocks ? [input, block * 64] : [tailView, (block - fullBlocks) * 64];
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(base + t * 4);
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15] as number;
      const b = w[t - 2] as number;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[];
    for (let t = 0; t < 64; t++) {
      const S1 =
        (((e as number) >>> 6) | ((e as number) << 26)) ^
        (((e as number) >>> 11) | ((e as number) << 21)) ^
        (((e as number) >>> 25) | ((e as number) << 7));
      const ch = ((e as number) & (f as number)) ^ (~(e as number) & (g as number));
      const t1 = ((hh as number) + S1 + ch + (K[t] as number) + (w[t] as number)) >>> 0;
      const S0 =
        (((a as number) >>> 2) | ((a as number) << 30)) ^
        (((a as number) >>> 13) | ((a as number) << 19)) ^
        (((a as number) >>> 22) | ((a as number) << 10));
      const maj = ((a as number) & (b as number)) ^ ((a as number) & (c as number)) ^ ((b as number) & (c as number));
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = ((d as number) + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0] as number) + (a as number);
    h[1] = (h[1] as number) + (b as number);
    h[2] = (h[2] as number) + (c as number);
    h[3] = (h[3] as number) + (d as number);
    h[4] = (h[4] as number) + (e as number);
    h[5] = (h[5] as number) + (f as number);
    h[6] = (h[6] as number) + (g as number);
    h[7] = (h[7] as number) + (hh as number);
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i] as number);
  return toHex(out);
}

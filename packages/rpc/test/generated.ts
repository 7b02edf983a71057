/**
 * Deterministic content for sync tests and the sync benchmark, generated in
 * 64 KiB pieces on demand so neither runtime holds a whole large file. Each
 * piece is the same xorshift block with its piece number stamped in front, so
 * no two 512 KiB chunks are equal (dedup would otherwise flatter a transfer).
 */

/** Bytes per piece handed to the writer, like a socket read would. */
export const PIECE = 64 * 1024;

function block(seed: number): Uint8Array {
  const out = new Uint8Array(PIECE);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < PIECE; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Piece `n` of the content for `seed`, with the bytes at file offsets `flips` inverted. */
function piece(base: Uint8Array, n: number, length: number, flips: readonly number[]): Uint8Array {
  const out = base.slice(0, length);
  new DataView(out.buffer).setUint32(0, n);
  for (const flip of flips) {
    const at = flip - n * PIECE;
    if (at >= 0 && at < length) out[at] = (out[at] as number) ^ 0xff;
  }
  return out;
}

export function generatedStream(bytes: number, seed = 1, flips: readonly number[] = []): ReadableStream<Uint8Array> {
  const base = block(seed);
  let sent = 0;
  let n = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= bytes) {
          controller.close();
          return;
        }
        const out = piece(base, n++, Math.min(PIECE, bytes - sent), flips);
        sent += out.byteLength;
        controller.enqueue(out);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The same content in one buffer (for expected hashes in tests). */
export function generatedBytes(bytes: number, seed = 1, flips: readonly number[] = []): Uint8Array {
  const base = block(seed);
  const out = new Uint8Array(bytes);
  for (let n = 0; n * PIECE < bytes; n++) out.set(piece(base, n, Math.min(PIECE, bytes - n * PIECE), flips), n * PIECE);
  return out;
}

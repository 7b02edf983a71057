import { CHUNK_SIZE } from "./constants.js";

/**
 * Re-cuts any input into aligned CHUNK_SIZE windows (the last may be short)
 * while it arrives. A stream is copied into one reused window, so memory
 * stays at one chunk plus one incoming piece whatever the file size: the
 * caller must be done with a window before asking for the next.
 */
export async function* cutChunks(data: string | Uint8Array | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (typeof data === "string") data = new TextEncoder().encode(data);
  if (data instanceof Uint8Array) {
    for (let at = 0; at < data.byteLength; at += CHUNK_SIZE) yield data.subarray(at, at + CHUNK_SIZE);
    return;
  }
  const reader = data.getReader();
  const window = new Uint8Array(CHUNK_SIZE);
  let filled = 0;
  let drained = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) throw new TypeError("writeFile stream must yield Uint8Array pieces");
      let at = 0;
      while (at < value.byteLength) {
        const take = Math.min(CHUNK_SIZE - filled, value.byteLength - at);
        window.set(value.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === CHUNK_SIZE) {
          yield window;
          filled = 0;
        }
      }
    }
    drained = true;
    if (filled > 0) yield window.subarray(0, filled);
  } finally {
    // A writer that gave up (bad path, failed staging) tells the source to stop producing.
    if (!drained) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

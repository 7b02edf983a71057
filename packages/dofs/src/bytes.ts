/**
 * Byte helpers every consumer of dofs needs once: a file read whole, a
 * request body, an execution's output. One copy here instead of one per
 * caller.
 */

/** Joins byte arrays into one, without copying when there is only one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Reads a byte stream (or any async iterable of byte chunks) to its end. */
export async function readAllBytes(
  source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  if (source instanceof ReadableStream) {
    // A reader, not `for await`: not every runtime's ReadableStream is async-iterable in its types.
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
      }
    } finally {
      reader.releaseLock();
    }
  } else {
    for await (const part of source) parts.push(part);
  }
  return concatBytes(parts);
}

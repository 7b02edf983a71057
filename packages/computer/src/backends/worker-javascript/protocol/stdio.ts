/**
 * The shared stdout + stderr cap. Both sides apply it: the runner so that it
 * never sends more than the cap, the host because it cannot trust the runner.
 * Applying it twice changes nothing, since a truncated stream already fits.
 */

export const STDIO_TRUNCATED_MARKER = "...[stdio truncated]";

// The one copy of the UTF-8 byte helpers: the sandbox may import only protocol/, and the host (tools, limits) uses them too.
const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  // Counting without encoding: 1 byte below U+0080, 2 below U+0800, 3 for the rest of the BMP, 4 for a surrogate pair.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`; a cut never splits a code point. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8Length(text) <= maxBytes) return text;
  const bytes = encoder.encode(text);
  return new TextDecoder().decode(bytes.subarray(0, utf8Boundary(bytes, maxBytes)));
}

/** The largest cut ≤ `at` that does not fall inside a multi-byte sequence of `bytes`. */
export function utf8Boundary(bytes: Uint8Array, at: number): number {
  let cut = Math.min(at, bytes.byteLength);
  // Step back over continuation bytes (10xxxxxx) to the start of the sequence they belong to.
  while (cut > 0 && cut < bytes.byteLength && ((bytes[cut] as number) & 0xc0) === 0x80) cut--;
  return cut;
}

export class StdioBudget {
  readonly #max: number;
  #used = 0;
  #truncated = false;

  /** `max` counts stdout and stderr together, the marker included. */
  constructor(max: number) {
    this.#max = max;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * What may be emitted of `text`. On overflow the result is the part that
   * still fits followed by the marker, and everything later is dropped.
   */
  take(text: string): string {
    if (this.#truncated) return "";
    const size = utf8Length(text);
    if (this.#used + size <= this.#max) {
      this.#used += size;
      return text;
    }
    this.#truncated = true;
    const room = this.#max - this.#used - utf8Length(STDIO_TRUNCATED_MARKER);
    const kept = utf8Prefix(text, room);
    this.#used = this.#max;
    return room < 0 ? "" : kept + STDIO_TRUNCATED_MARKER;
  }
}

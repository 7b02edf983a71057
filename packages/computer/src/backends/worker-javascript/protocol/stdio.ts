/**
 * The shared stdout + stderr cap. Both sides apply it: the runner so that it
 * never sends more than the cap, the host because it cannot trust the runner.
 * Applying it twice changes nothing, since a truncated stream already fits.
 */

export const STDIO_TRUNCATED_MARKER = "...[stdio truncated]";

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes that does not split a code point. */
export function utf8Prefix(text: string, bytes: number): string {
  if (bytes <= 0) return "";
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Length(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
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

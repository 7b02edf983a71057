/**
 * The tail of one output stream: the last `maxLines` lines, then of those the
 * last `maxBytes` bytes, kept in a window that never grows past `maxBytes`
 * (plus the chunk being added). Both cuts only ever move the window's start
 * forward, so keeping them while the stream flows gives the same tail as
 * cutting the whole output at the end, without holding the whole output.
 *
 * A line is a run of bytes ended by "\n"; an unterminated last line counts.
 */
import { concatBytes } from "@cloudflare/dofs";

const NEWLINE = 0x0a;

export interface TailLimits {
  maxLines: number;
  maxBytes: number;
}

/** What the cut left, in the shape of `TruncatedOutput` minus the saving. */
export interface TailSummary {
  totalBytes: number;
  totalLines: number;
  /** One-based number of the line the kept part starts in. */
  firstLine: number;
  /** The kept part starts partway through its first line. */
  partialLine: boolean;
}

export class OutputTail {
  readonly #limits: TailLimits;
  #window: Uint8Array = new Uint8Array(0);
  /** Bytes of the output before the window. */
  #dropped = 0;
  /** Newlines in the dropped part: the window's first line is line `#droppedLines + 1`. */
  #droppedLines = 0;
  /** Newlines in the window. */
  #windowLines = 0;
  /** Whether the byte before the window is a newline (or there is none). */
  #startsLine = true;

  constructor(limits: TailLimits) {
    this.#limits = limits;
  }

  get totalBytes(): number {
    return this.#dropped + this.#window.byteLength;
  }

  /** Whether anything was cut so far: the kept part no longer starts at the first byte. */
  get cut(): boolean {
    return this.#dropped > 0;
  }

  /** Adds output; returns whether this chunk made the output pass a limit for the first time. */
  push(chunk: Uint8Array): boolean {
    if (chunk.byteLength === 0) return false;
    const wasCut = this.cut;
    const keepFrom = Math.max(0, chunk.byteLength - this.#limits.maxBytes);
    // Bytes of a huge chunk that cannot survive the byte cut are never copied, only counted.
    if (keepFrom > 0) {
      this.#drop(this.#window.byteLength);
      this.#dropBytes(chunk.subarray(0, keepFrom));
    }
    const kept = chunk.subarray(keepFrom);
    this.#window = this.#window.byteLength === 0 ? kept.slice() : concatBytes([this.#window, kept]);
    this.#windowLines += countNewlines(kept);
    this.#drop(Math.max(0, this.#window.byteLength - this.#limits.maxBytes));
    this.#cutLines();
    return !wasCut && this.cut;
  }

  /** The kept bytes. */
  bytes(): Uint8Array {
    return this.#window;
  }

  /** The kept part as text; a character the cut split is dropped whole, which moves the cut onward. */
  text(): string {
    let start = 0;
    if (this.cut) while (start < this.#window.byteLength && isContinuation(this.#window[start] as number)) start++;
    return new TextDecoder().decode(this.#window.subarray(start));
  }

  summary(): TailSummary {
    const total = this.totalBytes;
    const last = this.#window.byteLength > 0 ? this.#window[this.#window.byteLength - 1] : undefined;
    const newlines = this.#droppedLines + this.#windowLines;
    const unterminated = total > 0 && last !== NEWLINE ? 1 : 0;
    return {
      totalBytes: total,
      totalLines: newlines + unterminated,
      firstLine: this.#droppedLines + 1,
      partialLine: !this.#startsLine,
    };
  }

  /** Keeps at most `maxLines` lines: drops whole lines from the front while there are more. */
  #cutLines(): void {
    const size = this.#window.byteLength;
    const last = size > 0 ? this.#window[size - 1] : undefined;
    let lines = this.#windowLines + (size > 0 && last !== NEWLINE ? 1 : 0);
    let start = 0;
    while (lines > this.#limits.maxLines) {
      start = this.#window.indexOf(NEWLINE, start) + 1;
      lines--;
    }
    if (start > 0) this.#drop(start);
  }

  /** Drops `count` bytes from the window's front. */
  #drop(count: number): void {
    if (count <= 0) return;
    this.#windowLines -= this.#dropBytes(this.#window.subarray(0, count));
    this.#window = this.#window.subarray(count);
  }

  /** Counts bytes leaving the kept part (from the window's front, or a chunk never copied); returns their newlines. */
  #dropBytes(bytes: Uint8Array): number {
    if (bytes.byteLength === 0) return 0;
    const newlines = countNewlines(bytes);
    this.#dropped += bytes.byteLength;
    this.#droppedLines += newlines;
    this.#startsLine = bytes[bytes.byteLength - 1] === NEWLINE;
    return newlines;
  }
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** A UTF-8 continuation byte (10xxxxxx): not the start of a character. */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * UTF-8-safe truncation. Limits are in bytes (what a context window and a
 * wire cost), and a cut never splits a code point: a lone continuation byte
 * would decode to U+FFFD and waste the model's attention on garbage.
 */

import { utf8Length, utf8Prefix } from "../backends/worker-javascript/protocol/stdio.js";

export function truncationMarker(moreBytes: number): string {
  return `[truncated, ${moreBytes} more bytes]`;
}

/**
 * `text` cut to `maxBytes` of UTF-8, then a blank line and
 * `[truncated, N more bytes]` when something was dropped. `totalBytes` is the
 * full size when `text` is itself only a prefix of the output (the rest was
 * never held).
 */
export function truncateUtf8(text: string, maxBytes: number, totalBytes = utf8Length(text)): string {
  if (totalBytes <= maxBytes && utf8Length(text) === totalBytes) return text;
  const kept = utf8Prefix(text, maxBytes);
  return `${kept}\n\n${truncationMarker(totalBytes - utf8Length(kept))}`;
}

/**
 * UTF-8-safe truncation. Limits are in bytes (what a context window and a
 * wire cost), and a cut never splits a code point: a lone continuation byte
 * would decode to U+FFFD and waste the model's attention on garbage.
 */

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

/** The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`. */
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

export function truncationMarker(moreBytes: number): string {
  return `[truncated, ${moreBytes} more bytes]`;
}

/**
 * `text` cut to `maxBytes` of UTF-8, then `\n[truncated, N more bytes]` when
 * something was dropped. `totalBytes` is the full size when `text` is itself
 * only a prefix of the output (the rest was never buffered).
 */
export function truncateUtf8(text: string, maxBytes: number, totalBytes = utf8Length(text)): string {
  if (totalBytes <= maxBytes) return text;
  const kept = utf8Prefix(text, maxBytes);
  return `${kept}\n${truncationMarker(totalBytes - utf8Length(kept))}`;
}

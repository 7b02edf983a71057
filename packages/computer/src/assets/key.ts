/** Object keys of shared files: `<prefix>/<id>/<basename>`, with a fresh random id per share. */

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** 16 random bytes as 26 lowercase Crockford base32 characters (128 bits, 2 bits of zero padding). */
export function randomId(bytes: Uint8Array = crypto.getRandomValues(new Uint8Array(16))): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD[(buffer << (5 - bits)) & 31];
  return out;
}

/** `"/a//b/"` → `"a/b"`: no empty segments, no leading or trailing slash. */
export function normalizePrefix(prefix: string | undefined): string {
  return (prefix ?? "")
    .split("/")
    .filter((segment) => segment !== "")
    .join("/");
}

export function objectKey(prefix: string | undefined, id: string, basename: string): string {
  const normalized = normalizePrefix(prefix);
  return normalized === "" ? `${id}/${basename}` : `${normalized}/${id}/${basename}`;
}

/**
 * What `read` does with a file that is not text: images and PDFs go to the
 * model as media parts, other binary files are reported as unsupported. The
 * extension decides when it is known; otherwise the first bytes are sniffed.
 */

export type MediaKind = "image" | "file";

export interface MediaType {
  kind: MediaKind;
  mediaType: string;
}

export type Classification = MediaType | { kind: "text" } | { kind: "binary" } | { kind: "unknown" };

const PNG: MediaType = { kind: "image", mediaType: "image/png" };
const JPEG: MediaType = { kind: "image", mediaType: "image/jpeg" };
const GIF: MediaType = { kind: "image", mediaType: "image/gif" };
const WEBP: MediaType = { kind: "image", mediaType: "image/webp" };
const PDF: MediaType = { kind: "file", mediaType: "application/pdf" };

const BY_EXTENSION: Readonly<Record<string, Classification>> = {
  png: PNG,
  jpg: JPEG,
  jpeg: JPEG,
  gif: GIF,
  webp: WEBP,
  pdf: PDF,
  // SVG is XML: the model reads it better as text than as a rasterized image.
  svg: { kind: "text" },
};

export function classifyByName(path: string): Classification {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return { kind: "unknown" };
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? { kind: "unknown" };
}

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  return signature.every((byte, i) => bytes[at + i] === byte);
}

/** Classifies a file of unknown extension by its first bytes (magic numbers, then NUL and UTF-8 validity). */
export function sniff(head: Uint8Array, complete: boolean): Classification {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  if (startsWith(head, [0xff, 0xd8, 0xff])) return JPEG;
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return GIF;
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) {
    return WEBP;
  }
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return PDF;
  if (head.includes(0)) return { kind: "binary" };
  return isUtf8(head, complete) ? { kind: "text" } : { kind: "binary" };
}

/** Valid UTF-8; when the sample is a prefix of the file, a sequence cut at its end is allowed. */
function isUtf8(bytes: Uint8Array, complete: boolean): boolean {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need < 0) return false;
    if (i + need >= bytes.length) {
      // A sequence running past the sample: fine for a prefix, invalid for a whole file.
      for (let j = i + 1; j < bytes.length; j++) if (((bytes[j] as number) & 0xc0) !== 0x80) return false;
      return !complete;
    }
    for (let j = 1; j <= need; j++) if (((bytes[i + j] as number) & 0xc0) !== 0x80) return false;
    i += need + 1;
  }
  return true;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

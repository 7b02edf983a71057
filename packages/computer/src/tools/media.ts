/**
 * What `read` does with a file that is not text: images and PDFs go to the
 * model as media parts, other binary files are reported as unsupported. A
 * known extension decides; otherwise a bounded prefix of the file is sniffed
 * (magic numbers, then a text heuristic), once per file: a continuation page
 * (`byteOffset > 0`) is text by construction and is not sniffed again.
 */

export type MediaKind = "image" | "file";

export interface MediaType {
  kind: MediaKind;
  mediaType: string;
}

export type Classification = MediaType | { kind: "text" } | { kind: "binary" };

export const BINARY_MEDIA_TYPE = "application/octet-stream";

const PNG: MediaType = { kind: "image", mediaType: "image/png" };
const JPEG: MediaType = { kind: "image", mediaType: "image/jpeg" };
const GIF: MediaType = { kind: "image", mediaType: "image/gif" };
const WEBP: MediaType = { kind: "image", mediaType: "image/webp" };
const PDF: MediaType = { kind: "file", mediaType: "application/pdf" };
const TEXT = { kind: "text" } as const;
const BINARY = { kind: "binary" } as const;

const MEDIA_EXTENSIONS: Readonly<Record<string, MediaType>> = {
  png: PNG,
  jpg: JPEG,
  jpeg: JPEG,
  gif: GIF,
  webp: WEBP,
  pdf: PDF,
};

/**
 * Extensions read as text without sniffing (svg among them: the model reads
 * XML better than a rasterized image). The same set as the original's, so a
 * file is classified the same way by either package.
 */
const TEXT_EXTENSIONS = new Set(
  (
    "c cc cpp h conf ini env toml yaml yml json jsonc xml svg html css csv md txt log lock " +
    "js mjs jsx ts tsx py rb php go rs java sh sql zig"
  ).split(" "),
);

/** Dotfiles and extensionless names that are text by convention (lowercased). */
const TEXT_NAMES = new Set([
  ".env",
  ".gitignore",
  ".gitattributes",
  ".dockerignore",
  ".editorconfig",
  ".npmrc",
  "dockerfile",
  "makefile",
]);

/** By name alone: a media type, text, or undefined when the bytes must decide. */
export function classifyByName(path: string): Classification | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1) : "";
  const media = MEDIA_EXTENSIONS[extension];
  if (media !== undefined) return media;
  if (TEXT_EXTENSIONS.has(extension) || TEXT_NAMES.has(name)) return TEXT;
  return undefined;
}

function hasPrefix(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  return bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);
}

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

/** Classifies a file by the first bytes of it (at most the sniff size). */
export function sniff(head: Uint8Array): Classification {
  if (hasPrefix(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  if (hasPrefix(head, [0xff, 0xd8, 0xff])) return JPEG;
  if (hasPrefix(head, ascii("GIF87a")) || hasPrefix(head, ascii("GIF89a"))) return GIF;
  if (hasPrefix(head, ascii("RIFF")) && hasPrefix(head, ascii("WEBP"), 8)) return WEBP;
  if (hasPrefix(head, ascii("%PDF-"))) return PDF;
  return looksLikeText(head) ? TEXT : BINARY;
}

const REPLACEMENT = "\ufffd";

/**
 * Text unless it has a NUL, or undecodable bytes that are both frequent (1 %
 * or more of the characters) and more than a stray few, or nothing printable
 * at all. Lenient on purpose: a Latin-1 file with one accented letter is
 * still better shown than refused.
 */
function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  const text = new TextDecoder().decode(bytes);
  if (text.length === 0) return true;
  let replaced = 0;
  for (const char of text) if (char === REPLACEMENT) replaced++;
  if (replaced / text.length < 0.01) return true;
  if (replaced > 2) return false;
  for (const char of text) {
    if (char !== REPLACEMENT && (char >= " " || char === "\n" || char === "\r" || char === "\t")) return true;
  }
  return false;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * MIME types by file extension: one small table for everything that labels a
 * file (Think's `stat`, the Content-Type of a shared asset). Enough for what
 * agents write and read most; anything else is `application/octet-stream`.
 */

const MIME_TYPES: Readonly<Record<string, string>> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  json: "application/json",
  xml: "application/xml",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  avif: "image/avif",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  woff: "font/woff",
  woff2: "font/woff2",
  cjs: "text/javascript",
  ts: "text/typescript",
  tsx: "text/typescript",
  jsx: "text/javascript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
};

export const FALLBACK_MIME_TYPE = "application/octet-stream";

export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return FALLBACK_MIME_TYPE;
  return MIME_TYPES[name.slice(dot + 1).toLowerCase()] ?? FALLBACK_MIME_TYPE;
}

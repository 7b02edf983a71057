/** Content-Type by extension and the Content-Disposition of a shared file. */

const TYPES: Readonly<Record<string, string>> = {
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
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
};

export const FALLBACK_CONTENT_TYPE = "application/octet-stream";

export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return FALLBACK_CONTENT_TYPE;
  return TYPES[name.slice(dot + 1).toLowerCase()] ?? FALLBACK_CONTENT_TYPE;
}

/**
 * `inline; filename="q3.pdf"`. A non-ASCII name adds RFC 6266's
 * `filename*=UTF-8''…` and keeps an ASCII fallback (non-ASCII as `_`) in
 * `filename=` for clients that know only that.
 */
export function contentDisposition(disposition: "inline" | "attachment", filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const header = `${disposition}; filename="${ascii}"`;
  if (/^[\x20-\x7e]*$/.test(filename)) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}

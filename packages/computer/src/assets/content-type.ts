/** Content-Type by extension and the Content-Disposition of a shared file. */
import { FALLBACK_MIME_TYPE, mimeTypeOf } from "../contracts/mime.js";

export const FALLBACK_CONTENT_TYPE = FALLBACK_MIME_TYPE;

/** The MIME type of the name; text is declared UTF-8 (what the workspace stores and agents write). */
export function contentTypeOf(name: string): string {
  const type = mimeTypeOf(name);
  return type.startsWith("text/") ? `${type}; charset=utf-8` : type;
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

/**
 * Headers that belong to one HTTP connection, not to the request or response
 * (RFC 9110 §7.6.1): a proxy drops them, along with any header the
 * `Connection` header names, before passing a message on.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Node's `rawHeaders` (name, value, name, value…) as `Headers`, names and repeats kept, hop-by-hop ones dropped. */
export function endToEndHeaders(rawHeaders: string[]): Headers {
  const named = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() !== "connection") continue;
    for (const token of (rawHeaders[i + 1] ?? "").split(",")) named.add(token.trim().toLowerCase());
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    headers.append(name, rawHeaders[i + 1] ?? "");
  }
  return headers;
}

/** A response's headers for Node's `writeHead`, hop-by-hop ones dropped and every `set-cookie` kept apart. */
export function responseHeaders(headers: Headers): Record<string, string | string[]> {
  const named = new Set((headers.get("connection") ?? "").split(",").map((token) => token.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    if (HOP_BY_HOP.has(name) || named.has(name) || name === "set-cookie") continue;
    out[name] = value;
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

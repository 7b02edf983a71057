/**
 * AWS Signature Version 4 query-string presigning (a "presigned URL") for
 * one GET, path-style (`<endpoint>/<bucket>/<key>`), as R2's S3 API accepts
 * it. WebCrypto only, so it runs in workerd and Node alike. The payload is
 * `UNSIGNED-PAYLOAD` and `host` the only signed header, as for any
 * browser-opened presigned URL.
 */

export interface PresignRequest {
  endpoint: string;
  bucket: string;
  key: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** Seconds, 1 to 604 800. */
  expiresIn: number;
  /** Signing time, ms since the epoch. */
  now: number;
}

const encoder = new TextEncoder();

/** RFC 3986 percent-encoding as SigV4 wants it: everything but `A–Z a–z 0–9 - _ . ~`. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", imported, encoder.encode(text));
}

/** `20260102T030405Z` and `20260102`. */
export function amzDates(now: number): { amzDate: string; day: string } {
  const amzDate = new Date(now)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  return { amzDate, day: amzDate.slice(0, 8) };
}

export async function presignGetUrl(request: PresignRequest): Promise<string> {
  const endpoint = new URL(request.endpoint);
  const base = endpoint.pathname.replace(/\/+$/, "");
  const canonicalUri = `${base}/${uriEncode(request.bucket)}/${request.key.split("/").map(uriEncode).join("/")}`;
  const { amzDate, day } = amzDates(request.now);
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const params: [string, string][] = [
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
    ["X-Amz-Credential", `${request.accessKeyId}/${scope}`],
    ["X-Amz-Date", amzDate],
    ["X-Amz-Expires", String(request.expiresIn)],
    ["X-Amz-SignedHeaders", "host"],
  ];
  const query = params
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalRequest = ["GET", canonicalUri, query, `host:${endpoint.host}`, "", "host", "UNSIGNED-PAYLOAD"].join(
    "\n",
  );
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(encoder.encode(`AWS4${request.secretAccessKey}`), day);
  for (const part of [request.region, request.service, "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, stringToSign));
  return `${endpoint.protocol}//${endpoint.host}${canonicalUri}?${query}&X-Amz-Signature=${signature}`;
}

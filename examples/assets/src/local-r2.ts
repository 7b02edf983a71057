/**
 * LOCAL STAND-IN for R2's S3 endpoint, for presigned GET URLs only, used only
 * when `LOCAL_STAND_INS` is "1". A deploy signs URLs for
 * `https://<account>.r2.cloudflarestorage.com`, which serves them; locally the
 * bucket is Miniflare's simulation, which has no S3 endpoint, so `npm run
 * dev` sets `R2_ENDPOINT` to this Worker's own `/local-r2` and this route
 * plays R2's part: it checks the SigV4 query signature (same access key and
 * secret, same canonical request, host the one signed header, unsigned
 * payload) and the expiry, then streams the object from the bucket binding.
 * Path-style: `/local-r2/<bucket>/<key>`.
 */

export const LOCAL_R2_PREFIX = "/local-r2/";

export interface LocalR2Env {
  IMAGES: R2Bucket;
  IMAGES_BUCKET_NAME: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
}

const encoder = new TextEncoder();

export async function serveLocalR2(request: Request, env: LocalR2Env, now = Date.now()): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return denied(405, "MethodNotAllowed");
  const url = new URL(request.url);
  const params = url.searchParams;
  const signature = params.get("X-Amz-Signature");
  const credential = params.get("X-Amz-Credential")?.split("/") ?? [];
  const amzDate = params.get("X-Amz-Date") ?? "";
  const expires = Number(params.get("X-Amz-Expires"));
  if (
    !signature ||
    params.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256" ||
    params.get("X-Amz-SignedHeaders") !== "host" ||
    credential.length !== 5 ||
    credential[4] !== "aws4_request"
  ) {
    return denied(403, "AccessDenied");
  }
  const [accessKeyId, day, region, service] = credential as [string, string, string, string];
  if (!env.R2_ACCESS_KEY_ID || !env.R2_SECRET_ACCESS_KEY || accessKeyId !== env.R2_ACCESS_KEY_ID) {
    return denied(403, "InvalidAccessKeyId");
  }
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === null || !day || amzDate.slice(0, 8) !== day || !(expires > 0)) return denied(403, "AccessDenied");
  if (now > signedAt + expires * 1000) return denied(403, "AccessDenied", "Request has expired");

  // The URL's path as sent is the canonical URI: the signer percent-encoded every key segment already.
  const query = [...params]
    .filter(([key]) => key !== "X-Amz-Signature")
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const canonical = ["GET", url.pathname, query, `host:${url.host}`, "", "host", "UNSIGNED-PAYLOAD"].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    hex(await crypto.subtle.digest("SHA-256", encoder.encode(canonical))),
  ];
  let key: ArrayBuffer = encoder.encode(`AWS4${env.R2_SECRET_ACCESS_KEY}`).buffer as ArrayBuffer;
  for (const part of [day, region, service, "aws4_request"]) key = await hmac(key, part);
  if (!sameText(hex(await hmac(key, toSign.join("\n"))), signature)) return denied(403, "SignatureDoesNotMatch");

  const [bucket, ...segments] = url.pathname.slice(LOCAL_R2_PREFIX.length).split("/");
  if (bucket !== env.IMAGES_BUCKET_NAME || segments.length === 0) return denied(404, "NoSuchBucket");
  const object = await env.IMAGES.get(segments.map(decodeURIComponent).join("/"));
  if (!object) return denied(404, "NoSuchKey");
  const headers = new Headers({ etag: object.httpEtag, "content-length": String(object.size) });
  object.writeHttpMetadata(headers);
  return new Response(request.method === "HEAD" ? null : object.body, { headers });
}

/** `20260102T030405Z` → ms, or null. */
function parseAmzDate(text: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
}

function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

async function hmac(key: ArrayBuffer, text: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", imported, encoder.encode(text));
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares without stopping at the first difference. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function denied(status: number, code: string, message = code): Response {
  return new Response(`${code}: ${message}\n`, { status, headers: { "content-type": "text/plain" } });
}

/**
 * A local stand-in for R2's S3 endpoint, for presigned GET URLs only: in
 * `npm run dev` and the tests, `workspaceAssets` signs URLs for
 * `<this Worker>/_r2` (LOCAL_R2_ENDPOINT) with local credentials, and this
 * route checks them the way S3 would — SigV4 query signature, expiry — then
 * serves the object from the local R2 binding. Deployed, URLs point at R2
 * itself and this route answers 404.
 */

export const LOCAL_R2_ROUTE = "/_r2/";
export const LOCAL_CREDENTIALS = { accessKeyId: "local-dev", secretAccessKey: "local-dev-secret" } as const;

const encoder = new TextEncoder();

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", imported, encoder.encode(text));
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `20260102T030405Z` → ms since the epoch. */
function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return Number.NaN;
  const [year, month, day, hours, minutes, seconds] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(year, month - 1, day, hours, minutes, seconds);
}

/** The signature S3 expects for this URL: the canonical request rebuilt from what arrived. */
async function expectedSignature(url: URL, secretAccessKey: string): Promise<string> {
  const pairs = url.search
    .slice(1)
    .split("&")
    .filter((pair) => pair !== "" && !pair.startsWith("X-Amz-Signature="))
    .sort();
  const params = url.searchParams;
  const [, day, region, service] = /^[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(
    params.get("X-Amz-Credential") ?? "",
  ) ?? ["", "", "", ""];
  const canonical = ["GET", url.pathname, pairs.join("&"), `host:${url.host}`, "", "host", "UNSIGNED-PAYLOAD"];
  const digest = hex(await crypto.subtle.digest("SHA-256", encoder.encode(canonical.join("\n"))));
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", params.get("X-Amz-Date"), scope, digest].join("\n");
  let key = await hmac(encoder.encode(`AWS4${secretAccessKey}`), day as string);
  for (const part of [region as string, service as string, "aws4_request"]) key = await hmac(key, part);
  return hex(await hmac(key, stringToSign));
}

export async function serveLocalR2(request: Request, bucket: R2Bucket, bucketName: string): Promise<Response> {
  const url = new URL(request.url);
  const deny = (code: string, message: string) => new Response(`${code}: ${message}\n`, { status: 403 });
  if (request.method !== "GET") return new Response("GET only\n", { status: 405 });
  const params = url.searchParams;
  if (!params.get("X-Amz-Credential")?.startsWith(`${LOCAL_CREDENTIALS.accessKeyId}/`)) {
    return deny("InvalidAccessKeyId", "unknown access key");
  }
  const signature = params.get("X-Amz-Signature") ?? "";
  if (signature !== (await expectedSignature(url, LOCAL_CREDENTIALS.secretAccessKey))) {
    return deny("SignatureDoesNotMatch", "the signature does not match");
  }
  const signedAt = parseAmzDate(params.get("X-Amz-Date") ?? "");
  const expires = Number(params.get("X-Amz-Expires"));
  if (!(Date.now() <= signedAt + expires * 1000)) return deny("AccessDenied", "Request has expired");
  const [bucketSegment, ...keySegments] = url.pathname.slice(LOCAL_R2_ROUTE.length).split("/");
  if (bucketSegment !== bucketName) return new Response("NoSuchBucket\n", { status: 404 });
  const object = await bucket.get(keySegments.map(decodeURIComponent).join("/"));
  if (!object) return new Response("NoSuchKey\n", { status: 404 });
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set("content-length", String(object.size));
  return new Response(object.body, { headers });
}

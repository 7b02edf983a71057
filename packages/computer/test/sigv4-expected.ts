/**
 * SigV4 query presigning recomputed from the AWS documentation on
 * node:crypto, independent of src/assets/sigv4.ts (WebCrypto), so a shared
 * mistake cannot hide: the signature a presigned GET URL should carry.
 * Used by share.node.test.ts and the assets differential test (workerd's
 * nodejs_compat has node:crypto).
 */
import { createHash, createHmac } from "node:crypto";

export function expectedSignature(url: URL, secret: string): string {
  const encode = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const params = [...url.searchParams.entries()].filter(([k]) => k !== "X-Amz-Signature");
  const query = params
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join("&");
  const canonical = `GET\n${url.pathname}\n${query}\nhost:${url.host}\n\nhost\nUNSIGNED-PAYLOAD`;
  const date = url.searchParams.get("X-Amz-Date") as string;
  const scope = (url.searchParams.get("X-Amz-Credential") as string).split("/").slice(1).join("/");
  const toSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${createHash("sha256").update(canonical).digest("hex")}`;
  const [day, region, service] = scope.split("/") as [string, string, string];
  let key: Buffer = createHmac("sha256", `AWS4${secret}`).update(day).digest();
  for (const part of [region, service, "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  return createHmac("sha256", key).update(toSign).digest("hex");
}

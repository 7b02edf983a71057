/**
 * Bearer auth for every route but /health. The scheme is matched without
 * case (RFC 7235); the token is compared in constant time over SHA-256
 * digests, so neither its bytes nor its length leak through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function isAuthorized(request: IncomingMessage, secret: string | undefined): boolean {
  if (secret === undefined) return true;
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) return false;
  const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(token), digest(secret));
}

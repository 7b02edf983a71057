/**
 * Reading a request body, for both of computerd's HTTP servers (the daemon's
 * and the local container host's). A body over `limit` bytes stops the read.
 */
import type { IncomingMessage } from "node:http";

/** The body as UTF-8, or `undefined` when it exceeds `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.byteLength;
    if (size > limit) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString("utf8");
}

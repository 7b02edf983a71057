import type { Database } from "./database.js";
import { toHex } from "./hex.js";

/**
 * SHA-256 as lowercase hex. A driver may offer a synchronous native hash
 * (`Database.sha256`, set by the Node driver from node:crypto): Web Crypto's
 * per-call overhead in Node is ~0.2 ms, which dominated small-file writes.
 * Elsewhere (workerd) Web Crypto is the native path.
 */
export async function sha256Hex(bytes: Uint8Array, db?: Database): Promise<string> {
  if (db?.sha256) return db.sha256(bytes);
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

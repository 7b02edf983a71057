import { toHex } from "./hex.js";

/** SHA-256 as lowercase hex, through Web Crypto so the same code runs in workerd and Node. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

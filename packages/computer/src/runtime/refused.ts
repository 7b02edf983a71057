/**
 * Ours, beside the original's `skipped`: the entries a pull refused for a
 * name too long to store (docs/sync.md). A result carries `refused` only
 * when it lists something, so every other result is the original's shape.
 */
import type { RefusedEntry } from "@cloudflare/dofs/sync";

/** `{ refused }` when a pull refused anything, else nothing: results carry the field only when it says something. */
export function refusedOf(result: { refused?: RefusedEntry[] | undefined }): { refused?: RefusedEntry[] } {
  return result.refused !== undefined && result.refused.length > 0 ? { refused: result.refused } : {};
}

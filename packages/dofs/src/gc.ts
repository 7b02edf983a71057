import { GC_SAFETY_WINDOW_MS } from "./constants.js";
import type { Database } from "./database.js";
import type { GcResult } from "./types.js";

/**
 * Frees blobs no chunk references and manifests no node references, in one
 * transaction. Blobs touched (staged, or orphaned by an overwrite or delete)
 * less than the safety window ago survive: a writer may be about to link them, or
 * an open read stream may still need them.
 */
export function gc(db: Database, options: { now: number; safetyWindowMs?: number }): GcResult {
  const cutoff = options.now - (options.safetyWindowMs ?? GC_SAFETY_WINDOW_MS);
  return db.transaction(() => {
    const orphan = `SELECT hash FROM vfs_blobs b WHERE b.last_seen <= ?
      AND NOT EXISTS (SELECT 1 FROM vfs_chunks c WHERE c.hash = b.hash)`;
    db.run(`DELETE FROM vfs_blob_bytes WHERE hash IN (${orphan})`, cutoff);
    db.run(`DELETE FROM vfs_blobs WHERE hash IN (${orphan})`, cutoff);
    const blobsFreed = db.changes();
    db.run(
      `DELETE FROM vfs_manifests WHERE last_seen <= ?
        AND NOT EXISTS (SELECT 1 FROM vfs_nodes n WHERE n.manifest_hash = vfs_manifests.hash)`,
      cutoff,
    );
    return { blobsFreed, manifestsFreed: db.changes() };
  });
}

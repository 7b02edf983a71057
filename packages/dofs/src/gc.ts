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
  return db.transaction(() => {
    let blobsFreed = 0;
    let manifestsFreed = 0;
    let after: string | undefined;
    do {
      const pass = collectGarbage(db, {
        now: options.now,
        windowMs: options.safetyWindowMs ?? GC_SAFETY_WINDOW_MS,
        limit: Number.MAX_SAFE_INTEGER,
        ...(after === undefined ? {} : { after }),
      });
      blobsFreed += pass.blobsFreed;
      manifestsFreed += pass.manifestsFreed;
      after = pass.next;
    } while (after !== undefined);
    return { blobsFreed, manifestsFreed };
  });
}

export interface CollectOptions {
  now: number;
  /** Unreferenced blobs and manifests touched less than this long ago survive. */
  windowMs: number;
  /** Unreferenced blobs looked at in this pass (bounded work: a caller on a busy loop runs several passes). */
  limit: number;
  /** Resume after this hash (the `next` of the previous pass). */
  after?: string;
  /** Hashes someone outside the store still needs (an open handle, a sync in flight): kept whatever their age. */
  isHeld?: (hash: string) => boolean;
}

export interface CollectResult extends GcResult {
  /** Bytes of the blobs freed. */
  bytesFreed: number;
  /** Blobs kept only because `isHeld` or a staging writer claimed them. */
  blobsHeld: number;
  /** Where the next pass resumes; undefined when this pass reached the end (and swept the manifests). */
  next?: string;
}

/**
 * One bounded pass of garbage collection, in one transaction: looks at up to
 * `limit` unreferenced blobs in hash order after `after`, and frees those
 * older than the window that nobody holds. The pass that reaches the end
 * also frees the unreferenced manifests older than the window (small rows).
 * Blobs a writer in this process has staged and not linked yet are never
 * freed (see holdBlobs), so a window of 0 is safe against them.
 */
export function collectGarbage(db: Database, options: CollectOptions): CollectResult {
  const cutoff = options.now - options.windowMs;
  const staged = blobHolds.get(db);
  return db.transaction(() => {
    const rows = db.all<{ hash: string; size: number }>(
      `SELECT b.hash, b.size FROM vfs_blobs b WHERE b.hash > ? AND b.last_seen <= ?
        AND NOT EXISTS (SELECT 1 FROM vfs_chunks c WHERE c.hash = b.hash)
        ORDER BY b.hash LIMIT ?`,
      options.after ?? "",
      cutoff,
      options.limit,
    );
    let blobsFreed = 0;
    let bytesFreed = 0;
    let blobsHeld = 0;
    for (const { hash, size } of rows) {
      if (staged?.has(hash) || options.isHeld?.(hash)) {
        blobsHeld++;
        continue;
      }
      // vfs_blob_bytes goes by the cascade, but foreign keys may be off: delete it explicitly.
      db.run("DELETE FROM vfs_blob_bytes WHERE hash = ?", hash);
      db.run("DELETE FROM vfs_blobs WHERE hash = ?", hash);
      blobsFreed++;
      bytesFreed += Number(size);
    }
    const last = rows.length < options.limit ? undefined : rows[rows.length - 1]?.hash;
    let manifestsFreed = 0;
    if (last === undefined) {
      db.run(
        `DELETE FROM vfs_manifests WHERE last_seen <= ?
          AND NOT EXISTS (SELECT 1 FROM vfs_nodes n WHERE n.manifest_hash = vfs_manifests.hash)`,
        cutoff,
      );
      manifestsFreed = db.changes();
    }
    return { blobsFreed, manifestsFreed, bytesFreed, blobsHeld, ...(last === undefined ? {} : { next: last }) };
  });
}

/** Hashes staged by writers in this process and not linked yet, per database, counted. */
const blobHolds = new WeakMap<Database, Map<string, number>>();

/**
 * Claims `hashes` for a writer that stages blobs before it links them (a
 * streamed writeFile, a pull fetching blobs): no gc pass frees them, at
 * any window, until the returned release runs. Holds are per `Database`
 * object: gc sees those taken on the same object it runs over.
 */
export function holdBlobs(db: Database, hashes: Iterable<string>): () => void {
  let held = blobHolds.get(db);
  if (held === undefined) {
    held = new Map();
    blobHolds.set(db, held);
  }
  const mine = [...hashes];
  for (const hash of mine) held.set(hash, (held.get(hash) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const hash of mine) {
      const count = (held.get(hash) ?? 1) - 1;
      if (count <= 0) held.delete(hash);
      else held.set(hash, count);
    }
  };
}

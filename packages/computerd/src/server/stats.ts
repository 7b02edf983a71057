/** Counts for /__computerd/stats: rows of the workspace store, blob bytes, and the process's memory. */
import type { Database } from "@cloudflare/dofs";

export function storeStats(db: Database): Record<string, number> {
  const count = (table: string): number => Number(db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)?.n ?? 0);
  const blobBytes = Number(db.one<{ b: number | null }>("SELECT sum(size) AS b FROM vfs_blobs")?.b ?? 0);
  // Blobs no chunk names (an overwritten file's old chunks) wait for gc.
  const orphanBytes = Number(
    db.one<{ b: number | null }>("SELECT sum(size) AS b FROM vfs_blobs WHERE hash NOT IN (SELECT hash FROM vfs_chunks)")
      ?.b ?? 0,
  );
  const memory = process.memoryUsage();
  return {
    vfs_nodes: count("vfs_nodes"),
    vfs_dirents: count("vfs_dirents"),
    vfs_chunks: count("vfs_chunks"),
    vfs_blobs: count("vfs_blobs"),
    vfs_manifests: count("vfs_manifests"),
    vfs_changes: count("vfs_changes"),
    blob_bytes: blobBytes,
    orphan_bytes: orphanBytes,
    rss: memory.rss,
    heap_used: memory.heapUsed,
    heap_total: memory.heapTotal,
    // Buffers live outside the V8 heap: the mount's chunk buffers and blobs read from the store.
    external: memory.external,
    array_buffers: memory.arrayBuffers,
  };
}

import { MANIFEST_VERSION } from "./constants.js";
import type { Database } from "./database.js";
import { sha256Hex } from "./hash.js";

export interface ChunkRef {
  hash: string;
  size: number;
}

/**
 * The canonical manifest text: `{"version":1,"chunks":[{"hash":…,"size":…}]}`
 * with keys in that order, so equal chunk lists always hash equal.
 */
export function encodeManifest(chunks: readonly ChunkRef[]): string {
  return JSON.stringify({ version: MANIFEST_VERSION, chunks: chunks.map(({ hash, size }) => ({ hash, size })) });
}

export async function manifestHash(chunks: readonly ChunkRef[], db?: Database): Promise<string> {
  return sha256Hex(new TextEncoder().encode(encodeManifest(chunks)), db);
}

/** Records a manifest (idempotent) and refreshes its `last_seen`. */
export function saveManifest(db: Database, hash: string, chunks: readonly ChunkRef[], now: number): void {
  const size = chunks.reduce((total, chunk) => total + chunk.size, 0);
  db.run(
    `INSERT INTO vfs_manifests (hash, size, encoded, last_seen) VALUES (?, ?, ?, ?)
     ON CONFLICT (hash) DO UPDATE SET last_seen = excluded.last_seen`,
    hash,
    size,
    encodeManifest(chunks),
    now,
  );
}

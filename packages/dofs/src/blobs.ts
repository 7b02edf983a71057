import type { Database } from "./database.js";
import { fsError } from "./errors.js";

/**
 * Stores one chunk's bytes under its hash. Identical content is stored once;
 * a row whose bytes are short (a torn earlier write) is repaired. Each call is
 * its own transaction, so a writer that fails half-way leaves only orphan
 * blobs, which `gc` collects.
 */
export function stageBlob(db: Database, hash: string, bytes: Uint8Array, now: number): void {
  db.transaction(() => putBlob(db, hash, bytes, now));
}

/** Stages many chunks in one transaction: a commit per 1 KiB blob dominated small-file sync. */
export function stageBlobs(db: Database, blobs: readonly { hash: string; bytes: Uint8Array }[], now: number): void {
  db.transaction(() => {
    for (const { hash, bytes } of blobs) putBlob(db, hash, bytes, now);
  });
}

/** `stageBlobs` inside a transaction the caller holds (whose writes all go together). */
export function putBlobs(db: Database, blobs: readonly { hash: string; bytes: Uint8Array }[], now: number): void {
  for (const { hash, bytes } of blobs) putBlob(db, hash, bytes, now);
}

function putBlob(db: Database, hash: string, bytes: Uint8Array, now: number): void {
  db.run(
    `INSERT INTO vfs_blobs (hash, size, last_seen) VALUES (?, ?, ?)
     ON CONFLICT (hash) DO UPDATE SET size = excluded.size, last_seen = excluded.last_seen`,
    hash,
    bytes.byteLength,
    now,
  );
  db.run(
    `INSERT INTO vfs_blob_bytes (hash, bytes) VALUES (?, ?)
     ON CONFLICT (hash) DO UPDATE SET bytes = excluded.bytes WHERE length(bytes) <> length(excluded.bytes)`,
    hash,
    bytes,
  );
}

/** A chunk's bytes; EIO when the row is missing or shorter than recorded. */
export function readBlob(db: Database, hash: string, size: number, syscall: string, path: string): Uint8Array {
  const row = db.one<{ bytes: Uint8Array }>("SELECT bytes FROM vfs_blob_bytes WHERE hash = ?", hash);
  if (row === undefined || row.bytes.byteLength !== size) {
    throw fsError("EIO", syscall, path, `missing or damaged chunk ${hash}`);
  }
  return row.bytes;
}

/** Which of `hashes` this store holds in full (bytes present, length = size). */
export function hasBlob(db: Database, hash: string): boolean {
  return (
    db.one(
      `SELECT 1 AS x FROM vfs_blobs b JOIN vfs_blob_bytes y ON y.hash = b.hash
        WHERE b.hash = ? AND length(y.bytes) = b.size`,
      hash,
    ) !== undefined
  );
}

/**
 * Collects arriving chunks and stages them in batches (one transaction per
 * ~4 MiB or 256 chunks), so memory stays bounded and small blobs do not
 * pay a commit each.
 */
export class BlobBatch {
  readonly #db: Database;
  readonly #now: () => number;
  #pending: { hash: string; bytes: Uint8Array }[] = [];
  #bytes = 0;

  constructor(db: Database, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  add(hash: string, bytes: Uint8Array): void {
    this.#pending.push({ hash, bytes });
    this.#bytes += bytes.byteLength;
    if (this.#bytes >= BATCH_BYTES || this.#pending.length >= BATCH_COUNT) this.flush();
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    stageBlobs(this.#db, this.#pending, this.#now());
    this.#pending = [];
    this.#bytes = 0;
  }
}

const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_COUNT = 256;

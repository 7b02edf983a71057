/**
 * Change entries in the store's form and on the wire. The store keys blobs by
 * lowercase hex (docs/dofs.md); the wire carries each chunk's hash as its 32
 * bytes, as the original's `SyncRPC` does. Everything inside dofs (coalesce,
 * apply, the driver's planning) works on `StoredChange`; an entry changes
 * form once, where it crosses the wire: `toWire` when a peer or the driver
 * sends it, `fromWire` when one receives it.
 */
import { hexInto, toHex } from "../hex.js";
import type { ChunkRef } from "../manifest.js";
import type { ChangeEntry, ChunkEntry, DeleteChange, DirChange, FileChange, SymlinkChange } from "./types.js";

/** A file entry as the store reads and applies it: chunk hashes in hex. */
export interface StoredFileChange extends Omit<FileChange, "chunks"> {
  chunks: ChunkRef[];
}

export type StoredLiveChange = StoredFileChange | DirChange | SymlinkChange;

/** A `ChangeEntry` in the store's form. Only file entries differ. */
export type StoredChange = StoredLiveChange | DeleteChange;

const HASH_BYTES = 32;

/**
 * The wire form. A file's hashes share one buffer (a view per chunk), so a
 * 2,000-chunk file costs one allocation of bytes, not 2,000.
 */
export function toWire(entry: StoredChange): ChangeEntry {
  if (entry.kind !== "file") return entry;
  const bytes = new Uint8Array(entry.chunks.length * HASH_BYTES);
  const chunks: ChunkEntry[] = new Array(entry.chunks.length);
  for (let i = 0; i < entry.chunks.length; i++) {
    const chunk = entry.chunks[i] as ChunkRef;
    const at = i * HASH_BYTES;
    hexInto(chunk.hash, bytes, at);
    chunks[i] = { hash: bytes.subarray(at, at + HASH_BYTES), size: chunk.size };
  }
  return { ...entry, chunks };
}

/** The store's form of an entry `checkEntry` passed (every hash 32 bytes). */
export function fromWire(entry: ChangeEntry): StoredChange {
  if (entry.kind !== "file") return entry;
  const chunks: ChunkRef[] = new Array(entry.chunks.length);
  for (let i = 0; i < entry.chunks.length; i++) {
    const chunk = entry.chunks[i] as ChunkEntry;
    chunks[i] = { hash: toHex(chunk.hash), size: chunk.size };
  }
  return { ...entry, chunks };
}

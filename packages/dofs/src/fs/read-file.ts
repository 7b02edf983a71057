import { readBlob } from "../blobs.js";
import { CHUNK_SIZE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { holdBlobs } from "../gc.js";
import type { ChunkRef } from "../manifest.js";
import type { NodeRow } from "../nodes.js";
import { resolvePath } from "../resolve.js";

const SYSCALL = "open";

/** The file node at `path` (links followed), or the error a read gets. */
export function openForRead(db: Database, path: string): NodeRow {
  const target = resolvePath(db, path, { followFinal: true }, SYSCALL);
  if (target.kind !== "found") throw fsError("ENOENT", SYSCALL, path);
  if (target.node.type === "dir") throw fsError("EISDIR", SYSCALL, path);
  return target.node;
}

/** One stored chunk clipped to the requested range. */
interface Piece extends ChunkRef {
  from: number;
  to: number;
}

/**
 * The chunk list for `[offset, offset + length)`, captured now so that a
 * later overwrite cannot tear a read in progress (the old blobs outlive the
 * overwrite by gc's safety window, and a stream holds them until it ends).
 */
export function planRead(db: Database, node: NodeRow, offset: number, length: number | undefined): Piece[] {
  const end = Math.min(node.size, length === undefined ? node.size : offset + length);
  if (offset >= end) return [];
  const first = Math.floor(offset / CHUNK_SIZE);
  const last = Math.floor((end - 1) / CHUNK_SIZE);
  const rows = db.all<{ idx: number; hash: string; size: number }>(
    "SELECT idx, hash, size FROM vfs_chunks WHERE inode = ? AND idx BETWEEN ? AND ? ORDER BY idx",
    node.inode,
    first,
    last,
  );
  return rows.map((row) => {
    const base = Number(row.idx) * CHUNK_SIZE;
    const size = Number(row.size);
    return {
      hash: row.hash,
      size,
      from: Math.max(0, offset - base),
      to: Math.min(size, end - base),
    };
  });
}

/** Streams the planned pieces one chunk per pull; nothing is read ahead. Its blobs are held from gc until it ends. */
export function streamPieces(db: Database, pieces: Piece[], path: string): ReadableStream<Uint8Array> {
  let next = 0;
  const release = holdBlobs(
    db,
    pieces.map((piece) => piece.hash),
  );
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const piece = pieces[next++];
        if (piece === undefined) {
          release();
          controller.close();
          return;
        }
        try {
          const bytes = readBlob(db, piece.hash, piece.size, "read", path);
          // Copy the clipped range: drivers may hand out views into shared memory.
          controller.enqueue(bytes.slice(piece.from, piece.to));
        } catch (error) {
          release();
          throw error;
        }
      },
      cancel() {
        release();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads the planned pieces into one string, decoding leniently (bad UTF-8 → U+FFFD). */
export function readPiecesAsText(db: Database, pieces: Piece[], path: string): string {
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  let text = "";
  for (const piece of pieces) {
    const bytes = readBlob(db, piece.hash, piece.size, "read", path);
    text += decoder.decode(bytes.subarray(piece.from, piece.to), { stream: true });
  }
  return text + decoder.decode();
}

import { readBlob, stageBlobs } from "../blobs.js";
import { CHUNK_SIZE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { type ChunkRef, encodeManifest, saveManifest } from "../manifest.js";
import { assertWritable } from "../mounts.js";
import { addDirent, getNode, insertNode, linkCount, listChildren, lookupNode, type NodeRow } from "../nodes.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import type { NodeType } from "../types.js";

/**
 * Inode-level verbs for a mount driver (computerd's FUSE write path), which
 * knows a file by its inode once it is open and writes it in place: a few
 * dirty chunks at a time rather than the whole file. Internal like `rename`
 * and `link`: `workspace.fs` does not expose them. Synchronous, with the
 * caller's synchronous SHA-256, so a commit reads the chunk list and writes
 * the new one without anything running in between.
 */

/** What `getattr` needs about one node. */
export interface InodeAttr {
  inode: number;
  type: NodeType;
  mode: number;
  mtime: number;
  size: number;
  /** Names pointing at the node (hardlinks); 1 for the root. */
  nlink: number;
  linkTarget: string | null;
}

/** The node at `path` without following a final symlink; undefined when absent. ENOTDIR when a parent is a file. */
export function lookupInode(db: Database, path: string): InodeAttr | undefined {
  const found = resolvePath(db, path, { followFinal: false }, "lstat");
  if (found.kind === "found") return attrOf(db, found.node);
  if (found.kind === "blocked" && found.reason === "notdir") throw fsError("ENOTDIR", "lstat", path);
  return undefined;
}

/** The node named `name` in directory `parent`, without following it; undefined when absent. One query. */
export function childAttr(db: Database, parent: number, name: string): InodeAttr | undefined {
  const node = lookupNode(db, parent, name);
  return node === undefined ? undefined : attrOf(db, node);
}

/** A directory's entries with their nodes' attributes, names in byte order (readdirplus). */
export function childAttrs(db: Database, parent: number): { name: string; attr: InodeAttr }[] {
  return listChildren(db, parent).map((child) => ({ name: child.name, attr: attrOf(db, child) }));
}

export function inodeAttr(db: Database, inode: number): InodeAttr | undefined {
  const node = getNode(db, inode);
  return node === undefined ? undefined : attrOf(db, node);
}

function attrOf(db: Database, node: NodeRow): InodeAttr {
  const inode = Number(node.inode);
  return {
    inode,
    type: node.type,
    mode: Number(node.mode),
    mtime: Number(node.mtime),
    size: Number(node.size),
    nlink: node.type === "file" ? Math.max(1, linkCount(db, inode)) : 1,
    linkTarget: node.link_target,
  };
}

/** A file's chunks in order: chunk `i` holds bytes `[i * CHUNK_SIZE, …)`. */
export function inodeChunks(db: Database, inode: number): ChunkRef[] {
  return db
    .all<ChunkRef>("SELECT hash, size FROM vfs_chunks WHERE inode = ? ORDER BY idx", inode)
    .map(({ hash, size }) => ({ hash, size: Number(size) }));
}

/** One chunk's bytes (EIO when missing). The array is the caller's own copy on Node. */
export function readChunk(db: Database, chunk: ChunkRef, path: string): Uint8Array {
  return readBlob(db, chunk.hash, chunk.size, "read", path);
}

/** A chunk rewritten by the caller: its index and its full new bytes (`CHUNK_SIZE` except the last). */
export interface DirtyChunk {
  idx: number;
  bytes: Uint8Array;
}

/** A chunk pointing at a stored blob. */
export interface SharedChunk extends ChunkRef {
  idx: number;
}

export interface InodeWrite {
  /** The file's new length; chunks past it are dropped. */
  size: number;
  mtime: number;
  /** Rewritten chunks. Every chunk that the new size cuts short must be here with its new bytes (or in `shared`). */
  dirty: readonly DirtyChunk[];
  /**
   * Chunks set to content already stored, by hash (a `copy_file_range` from
   * another file): nothing to hash or stage. EIO when the blob is gone.
   */
  shared?: readonly SharedChunk[];
  /** Synchronous SHA-256 in lowercase hex (node:crypto in computerd). */
  sha256: (bytes: Uint8Array) => string;
  /** For error messages and the read-only check. */
  path: string;
  /**
   * The smallest length a truncate left since the file's last write, when
   * it was truncated and maybe grown again in between: stored chunks not
   * wholly below it are dropped, so each one up to the new end must be given
   * (zeros where it was grown) or the write fails with EIO. Without it, the
   * old bytes of a chunk of the same length would silently come back.
   */
  cutAt?: number;
}

/**
 * Replaces some of a file's chunks and sets its length and mtime in one
 * transaction with one new rev, like a `writeFile` that only touches what
 * changed: the clean chunks keep their hashes, so only the dirty bytes are
 * hashed and stored. Chunks between the old end and a dirty chunk past it
 * (a sparse write) must be given too: the caller knows them as zeros.
 */
export function writeInode(db: Database, inode: number, write: InodeWrite, now: number): number {
  assertWritable(db, write.path, "write");
  const count = Math.ceil(write.size / CHUNK_SIZE);
  const staged = write.dirty
    .filter((chunk) => chunk.idx < count)
    .map((chunk) => ({ idx: chunk.idx, hash: write.sha256(chunk.bytes), bytes: chunk.bytes }));
  return db.transaction(() => {
    const node = getNode(db, inode);
    if (node === undefined) throw fsError("ENOENT", "write", write.path);
    if (node.type !== "file") throw fsError("EISDIR", "write", write.path);
    stageBlobs(db, staged, now);
    const kept = Math.min(count, Math.floor((write.cutAt ?? Number.POSITIVE_INFINITY) / CHUNK_SIZE));
    const chunks = inodeChunks(db, inode).slice(0, kept);
    const shared = (write.shared ?? []).filter((chunk) => chunk.idx < count);
    for (const { idx, hash, size } of shared) {
      const blob = db.one<{ size: number }>("SELECT size FROM vfs_blobs WHERE hash = ?", hash);
      if (blob === undefined || Number(blob.size) !== size) {
        throw fsError("EIO", "write", write.path, `shared chunk ${hash} is gone`);
      }
      db.run("UPDATE vfs_blobs SET last_seen = ? WHERE hash = ?", now, hash);
      chunks[idx] = { hash, size };
    }
    for (const { idx, hash, bytes } of staged) chunks[idx] = { hash, size: bytes.byteLength };
    for (let idx = 0; idx < count; idx++) {
      const chunk = chunks[idx];
      const expected = Math.min(CHUNK_SIZE, write.size - idx * CHUNK_SIZE);
      if (chunk === undefined || chunk.size !== expected) {
        throw fsError("EIO", "write", write.path, `chunk ${idx} is missing or ${chunk?.size} bytes, not ${expected}`);
      }
    }
    const encoded = encodeManifest(chunks);
    const manifest = write.sha256(new TextEncoder().encode(encoded));
    saveManifest(db, manifest, chunks, now);
    db.run(
      "UPDATE vfs_blobs SET last_seen = ? WHERE hash IN (SELECT hash FROM vfs_chunks WHERE inode = ? AND idx >= ?)",
      now,
      inode,
      count,
    );
    db.run("DELETE FROM vfs_chunks WHERE inode = ? AND idx >= ?", inode, count);
    for (const { idx, hash, size } of [
      ...shared,
      ...staged.map(({ idx, hash, bytes }) => ({ idx, hash, size: bytes.byteLength })),
    ]) {
      db.run(
        `INSERT INTO vfs_chunks (inode, idx, hash, size) VALUES (?, ?, ?, ?)
         ON CONFLICT (inode, idx) DO UPDATE SET hash = excluded.hash, size = excluded.size`,
        inode,
        idx,
        hash,
        size,
      );
    }
    const rev = bumpRev(db);
    db.run(
      "UPDATE vfs_nodes SET mtime = ?, rev = ?, size = ?, manifest_hash = ? WHERE inode = ?",
      write.mtime,
      rev,
      write.size,
      manifest,
      inode,
    );
    return rev;
  });
}

/**
 * Creates an empty file at a free path (FUSE's create after a negative
 * lookup) in one synchronous transaction: the same rows as `writeFile` of
 * nothing, without its async chunking. EEXIST when the path is taken, so the
 * caller can fall back to opening what is there.
 */
export function createFileInode(
  db: Database,
  path: string,
  mode: number,
  sha256: (bytes: Uint8Array) => string,
  now: number,
): InodeAttr {
  assertWritable(db, path, "open");
  const manifest = sha256(new TextEncoder().encode(encodeManifest([])));
  return db.transaction(() => {
    const target = resolvePath(db, path, { followFinal: false }, "open");
    if (target.kind === "found") throw fsError("EEXIST", "open", path);
    if (target.kind === "blocked") throw fsError(target.reason === "missing" ? "ENOENT" : "ENOTDIR", "open", path);
    const rev = bumpRev(db);
    saveManifest(db, manifest, [], now);
    const inode = insertNode(db, { type: "file", mode, mtime: now, rev, size: 0, manifestHash: manifest });
    addDirent(db, target.parent, target.name, inode);
    return { inode, type: "file", mode, mtime: now, size: 0, nlink: 1, linkTarget: null };
  });
}

/** Sets a node's mtime (utimens) with a new rev, so a peer pulls the new time; the same time changes nothing. */
export function setInodeMtime(db: Database, inode: number, mtime: number, path: string): void {
  assertWritable(db, path, "utime");
  db.transaction(() => {
    const node = getNode(db, inode);
    if (node === undefined) throw fsError("ENOENT", "utime", path);
    if (node.mtime === mtime) return;
    const rev = bumpRev(db);
    db.run("UPDATE vfs_nodes SET mtime = ?, rev = ? WHERE inode = ?", mtime, rev, inode);
  });
}

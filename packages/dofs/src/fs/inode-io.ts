import { putBlobs, readBlob } from "../blobs.js";
import { CHUNK_SIZE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { type ChunkRef, encodeManifest, saveManifest } from "../manifest.js";
import { assertWritable } from "../mounts.js";
import {
  addDirent,
  dropChunks,
  getNode,
  hasChildren,
  insertNode,
  linkCount,
  lookupNode,
  type NodeRow,
} from "../nodes.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import type { NodeType } from "../types.js";
import { removeTree } from "./rm.js";

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

/**
 * What getattr reads of a node, its link count included: one statement per
 * attribute (these run on every FUSE lookup, getattr and readdirplus entry).
 */
const ATTR_COLUMNS = `n.inode AS inode, n.type AS type, n.mode AS mode, n.mtime AS mtime, n.size AS size,
  n.link_target AS link_target,
  CASE WHEN n.type = 'file' THEN (SELECT count(*) FROM vfs_dirents l WHERE l.child_inode = n.inode) ELSE 1 END AS nlink`;

interface AttrRow {
  inode: number;
  type: NodeType;
  mode: number;
  mtime: number;
  size: number;
  link_target: string | null;
  nlink: number;
}

function attrOfRow(row: AttrRow): InodeAttr {
  return {
    inode: Number(row.inode),
    type: row.type,
    mode: Number(row.mode),
    mtime: Number(row.mtime),
    size: Number(row.size),
    nlink: Math.max(1, Number(row.nlink)),
    linkTarget: row.link_target,
  };
}

/** The node named `name` in directory `parent`, without following it; undefined when absent. One query. */
export function childAttr(db: Database, parent: number, name: string): InodeAttr | undefined {
  const row = db.one<AttrRow>(
    `SELECT ${ATTR_COLUMNS} FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
      WHERE d.parent_inode = ? AND d.name = ?`,
    parent,
    name,
  );
  return row === undefined ? undefined : attrOfRow(row);
}

/** A directory's entries with their nodes' attributes, names in byte order (readdirplus). One query. */
export function childAttrs(db: Database, parent: number): { name: string; attr: InodeAttr }[] {
  return db
    .all<AttrRow & { name: string }>(
      `SELECT d.name AS name, ${ATTR_COLUMNS} FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
        WHERE d.parent_inode = ? ORDER BY d.name`,
      parent,
    )
    .map((row) => ({ name: row.name, attr: attrOfRow(row) }));
}

/** A node's attributes by inode; undefined once it is gone. One query. */
export function inodeAttr(db: Database, inode: number): InodeAttr | undefined {
  const row = db.one<AttrRow>(`SELECT ${ATTR_COLUMNS} FROM vfs_nodes n WHERE n.inode = ?`, inode);
  return row === undefined ? undefined : attrOfRow(row);
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
  /** New permission bits (a chmod made while the bytes were buffered), undefined to keep them. */
  mode?: number;
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
  // Every read and check first, then the writes alone (`checkedWrites`: no savepoint where the
  // driver can, which was a third of a small file's commit on computerd's batched store).
  const node = getNode(db, inode);
  if (node === undefined) throw fsError("ENOENT", "write", write.path);
  if (node.type !== "file") throw fsError("EISDIR", "write", write.path);
  const kept = Math.min(count, Math.floor((write.cutAt ?? Number.POSITIVE_INFINITY) / CHUNK_SIZE));
  const chunks = kept === 0 ? [] : inodeChunks(db, inode).slice(0, kept);
  const shared = (write.shared ?? []).filter((chunk) => chunk.idx < count);
  for (const { idx, hash, size } of shared) {
    const blob = db.one<{ size: number }>("SELECT size FROM vfs_blobs WHERE hash = ?", hash);
    if (blob === undefined || Number(blob.size) !== size) {
      throw fsError("EIO", "write", write.path, `shared chunk ${hash} is gone`);
    }
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
  // A file that had no chunk rows (an empty one: every write path stores none for it) needs no cleanup of them.
  const hadChunks = Number(node.size) !== 0;
  return checkedWrites(db, () => {
    putBlobs(db, staged, now);
    for (const { hash } of shared) db.run("UPDATE vfs_blobs SET last_seen = ? WHERE hash = ?", now, hash);
    saveManifest(db, manifest, chunks, now);
    if (hadChunks) {
      db.run(
        "UPDATE vfs_blobs SET last_seen = ? WHERE hash IN (SELECT hash FROM vfs_chunks WHERE inode = ? AND idx >= ?)",
        now,
        inode,
        count,
      );
      db.run("DELETE FROM vfs_chunks WHERE inode = ? AND idx >= ?", inode, count);
    }
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
      "UPDATE vfs_nodes SET mtime = ?, rev = ?, size = ?, manifest_hash = ?, mode = coalesce(?, mode) WHERE inode = ?",
      write.mtime,
      rev,
      write.size,
      manifest,
      write.mode ?? null,
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
  at?: ChildName,
): InodeAttr {
  assertWritable(db, path, "open");
  const manifest = emptyManifest ?? sha256(new TextEncoder().encode(encodeManifest([])));
  emptyManifest = manifest;
  const writes = (parent: number, name: string): InodeAttr => {
    const rev = bumpRev(db);
    touchEmptyManifest(db, manifest, now);
    const inode = insertNode(db, { type: "file", mode, mtime: now, rev, size: 0, manifestHash: manifest });
    addDirent(db, parent, name, inode);
    return { inode, type: "file", mode, mtime: now, size: 0, nlink: 1, linkTarget: null };
  };
  if (at !== undefined) {
    checkFreeChild(db, at, path, "open");
    return checkedWrites(db, () => writes(at.parent, at.name));
  }
  return db.transaction(() => {
    const target = resolvePath(db, path, { followFinal: false }, "open");
    if (target.kind === "found") throw fsError("EEXIST", "open", path);
    if (target.kind === "blocked") throw fsError(target.reason === "missing" ? "ENOENT" : "ENOTDIR", "open", path);
    return writes(target.parent, target.name);
  });
}

/**
 * The empty file's manifest row, upserted at most once a second per
 * database rather than by every create (tar makes thousands a second):
 * its `last_seen` only keeps gc from collecting it while unreferenced, and
 * gc's safety window is far longer than a second.
 */
const emptyManifestSaved = new WeakMap<Database, number>();

function touchEmptyManifest(db: Database, manifest: string, now: number): void {
  const saved = emptyManifestSaved.get(db);
  if (saved !== undefined && now - saved < 1_000 && now >= saved) return;
  saveManifest(db, manifest, [], now);
  emptyManifestSaved.set(db, now);
}

/**
 * Writes whose checks all ran before them: without a savepoint where the
 * driver can (`checkedWrites`), since only a storage error can fail them now.
 */
function checkedWrites<T>(db: Database, writes: () => T): T {
  return db.checkedWrites !== undefined ? db.checkedWrites(writes) : db.transaction(writes);
}

/**
 * Creates a directory named `at` (mkdir by directory inode, no walk from the
 * root: FUSE's mkdir after a negative lookup) in one synchronous
 * transaction, with the same rows as `mkdir` of its path. EEXIST when the
 * name is taken, ENOENT/ENOTDIR when the directory is gone or is not one.
 */
export function mkdirInode(db: Database, path: string, mode: number, now: number, at: ChildName): InodeAttr {
  assertWritable(db, path, "mkdir");
  checkFreeChild(db, at, path, "mkdir");
  return checkedWrites(db, () => {
    const rev = bumpRev(db);
    const inode = insertNode(db, { type: "dir", mode, mtime: now, rev });
    addDirent(db, at.parent, at.name, inode);
    return { inode, type: "dir", mode, mtime: now, size: 0, nlink: 1, linkTarget: null };
  });
}

/**
 * A name in a directory the caller already resolved (a FUSE driver keeps
 * its directories' inodes): the verbs taking one skip the walk from the
 * root, one query per segment. `path` must still name the same place; it
 * is what the read-only check and the change journal see.
 */
export interface ChildName {
  parent: number;
  name: string;
}

/** The hash of the empty manifest, the same for every caller's SHA-256. */
let emptyManifest: string | undefined;

/** EEXIST when `at` names something, ENOENT/ENOTDIR when its directory is gone or is not one. One query. */
function checkFreeChild(db: Database, at: ChildName, path: string, syscall: string): void {
  const row = db.one<{ dir: NodeType | null; taken: number | null }>(
    `SELECT (SELECT type FROM vfs_nodes WHERE inode = ?) AS dir,
            (SELECT child_inode FROM vfs_dirents WHERE parent_inode = ? AND name = ?) AS taken`,
    at.parent,
    at.parent,
    at.name,
  );
  if (row?.taken !== null && row?.taken !== undefined) throw fsError("EEXIST", syscall, path);
  if (row?.dir === null || row?.dir === undefined) throw fsError("ENOENT", syscall, path);
  if (row.dir !== "dir") throw fsError("ENOTDIR", syscall, path);
}

/**
 * What a caller read of a name in the same synchronous step as it removes
 * it (computerd's MountFs answers the kernel's lookup with it): the verbs
 * below skip reading the name again. It must be that name's node, read with
 * nothing run in between.
 */
export interface KnownChild {
  inode: number;
  type: NodeType;
  /** Names the node had (`childAttr`'s count; exact for files only): 1 means this is a file's last. */
  nlink: number;
  /**
   * Its stored size, when read with the rest: a file of size 0 has no chunk
   * rows (every write path stores none for it), so its removal skips the
   * chunk statements.
   */
  size?: number;
}

/**
 * Removes the file or symlink `at` names (unlink by directory inode, no
 * walk): the same rows and tombstone as `rm` of its path. ENOENT when the
 * name is gone, EISDIR for a directory (rmdir: `rmdirChild`). With `known`
 * the name is not read again, a file known to have one name skips the
 * link-count query, and a symlink (no chunks) the chunk statements.
 */
export function unlinkChild(db: Database, at: ChildName, path: string, now: number, known?: KnownChild): void {
  assertWritable(db, path, "rm");
  if (known === undefined) {
    db.transaction(() => {
      const node = lookupNode(db, at.parent, at.name);
      if (node === undefined) throw fsError("ENOENT", "rm", path);
      if (node.type === "dir") throw fsError("EISDIR", "rm", path);
      removeTree(db, at.parent, at.name, Number(node.inode), false, path, bumpRev(db), now, true);
    });
    return;
  }
  if (known.type === "dir") throw fsError("EISDIR", "rm", path);
  // Only a file's count is exact in InodeAttr (a symlink's reads 1): a symlink asks, though dofs links files only.
  const last = known.type === "file" ? known.nlink <= 1 : linkCount(db, known.inode) <= 1;
  removeKnown(db, at, known, last, path, now);
}

/**
 * Removes the empty directory `at` names (rmdir by directory inode, no
 * walk): the same rows and tombstone as `rm` of its path. ENOTEMPTY when it
 * has entries; `inode` is the directory's, read in the same synchronous
 * step (see KnownChild).
 */
export function rmdirChild(db: Database, at: ChildName, path: string, now: number, inode: number): void {
  assertWritable(db, path, "rm");
  if (hasChildren(db, inode)) throw fsError("ENOTEMPTY", "rm", path);
  removeKnown(db, at, { inode, type: "dir", nlink: 1 }, true, path, now);
}

/**
 * `unlinkName` and the tombstone, every check made before: the writes go
 * without a savepoint where the driver can (`checkedWrites`), which halves
 * an unlink's cost on computerd's batched store. `last`: the node goes too.
 */
function removeKnown(db: Database, at: ChildName, known: KnownChild, last: boolean, path: string, now: number): void {
  const writes = (): void => {
    const rev = bumpRev(db);
    db.run("DELETE FROM vfs_dirents WHERE parent_inode = ? AND name = ?", at.parent, at.name);
    if (last) {
      // Only files have chunk rows, and an empty one none.
      if (known.type === "file" && known.size !== 0) dropChunks(db, known.inode, now);
      db.run("DELETE FROM vfs_nodes WHERE inode = ?", known.inode);
    }
    db.run("INSERT INTO vfs_changes (rev, path, op) VALUES (?, ?, 'delete')", rev, path);
  };
  checkedWrites(db, writes);
}

/**
 * Sets a node's permission bits (chmod by inode, no path walk) with a new
 * rev; the same bits change nothing (tar's chmod after a create with that
 * mode costs no write).
 */
export function setInodeMode(db: Database, inode: number, mode: number, path: string): void {
  assertWritable(db, path, "chmod");
  const node = getNode(db, inode);
  if (node === undefined) throw fsError("ENOENT", "chmod", path);
  if (Number(node.mode) === mode) return;
  checkedWrites(db, () => db.run("UPDATE vfs_nodes SET mode = ?, rev = ? WHERE inode = ?", mode, bumpRev(db), inode));
}

/** Sets a node's mtime (utimens) with a new rev, so a peer pulls the new time; the same time changes nothing. */
export function setInodeMtime(db: Database, inode: number, mtime: number, path: string): void {
  assertWritable(db, path, "utime");
  const node = getNode(db, inode);
  if (node === undefined) throw fsError("ENOENT", "utime", path);
  if (node.mtime === mtime) return;
  checkedWrites(db, () => db.run("UPDATE vfs_nodes SET mtime = ?, rev = ? WHERE inode = ?", mtime, bumpRev(db), inode));
}

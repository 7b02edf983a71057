import { hasBlob } from "../blobs.js";
import { CHUNK_SIZE, DEFAULT_DIR_MODE, MODE_MASK, ROOT_INODE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { removeTree } from "../fs/rm.js";
import { linkChunks } from "../fs/write-file.js";
import { manifestHash, saveManifest } from "../manifest.js";
import { readOnlyRootOf } from "../mounts.js";
import { addDirent, dropChunks, getNode, insertNode, linkCount, lookup, lookupNode, type NodeRow } from "../nodes.js";
import { isNameTooLong, isTargetTooLong, joinPath, segmentsOf } from "../path.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import { recordEchoRev } from "./echo.js";
import type { RefusedEntry, SkippedEntry } from "./types.js";
import type { StoredChange, StoredFileChange, StoredLiveChange } from "./wire.js";

/**
 * `upstream`: entries from a sync peer (idempotent re-sends are dropped).
 * `local`: an outside writer (senderRev 0) whose entries are ordinary writes.
 */
export type ApplySource = "upstream" | "local";

export interface ApplyResult {
  /** Entries that were processed (deletes count even when nothing was there). */
  applied: number;
  /** Entries at or under a read-only mount: the original's skips, and only those. */
  skipped: SkippedEntry[];
  /** Ours: live entries refused for a name too long to store. Absent when there were none. */
  refused?: RefusedEntry[];
}

/** A file entry with its manifest hash worked out ahead (hashing is async; the apply is not). */
export interface PreparedEntries {
  entries: readonly StoredChange[];
  manifests: Map<StoredFileChange, string>;
}

/** Entries in the store's form (`fromWire` for what came over the wire). */
export async function prepareEntries(entries: readonly StoredChange[], db?: Database): Promise<PreparedEntries> {
  const manifests = new Map<StoredFileChange, string>();
  for (const entry of entries) if (entry.kind === "file") manifests.set(entry, await manifestHash(entry.chunks, db));
  return { entries, manifests };
}

/**
 * Applies a batch of entries in one transaction: all or nothing. File entries
 * are checked (chunk layout, every chunk present) before anything changes.
 * Missing parents are created; a non-directory parent is replaced; a type
 * conflict removes the local subtree without tombstones (the incoming entry
 * supersedes it) — last writer wins. Entries under a read-only mount are
 * skipped, and live entries with a name too long to store are refused; both
 * are reported (`skipped`, `refused`).
 *
 * Revs: what an upstream batch applies is stamped with one new rev, recorded
 * as an echo rev of `peer` so it is never offered back to that peer.
 * Side effects the sender did not ask for (parents created or replaced here)
 * get a second rev of their own: they are local changes the peer must learn.
 * Revs are bumped only if something changed.
 */
export function applyChanges(
  db: Database,
  prepared: PreparedEntries,
  source: ApplySource,
  now: number,
  peer = "default",
): ApplyResult {
  // A file skipped for its name needs no chunks here.
  for (const entry of prepared.entries) if (entry.kind === "file" && !isTooLongToStore(entry)) checkFile(db, entry);
  return db.transaction(() => {
    let rev = 0;
    let sideRev = 0;
    const stamps: Stamps = {
      entry() {
        if (rev === 0) {
          rev = bumpRev(db);
          if (source === "upstream") recordEchoRev(db, peer, rev);
        }
        return rev;
      },
      side() {
        if (source === "local") return this.entry();
        if (sideRev === 0) sideRev = bumpRev(db);
        return sideRev;
      },
    };
    const skipped: SkippedEntry[] = [];
    const refused: RefusedEntry[] = [];
    let applied = 0;
    for (const entry of prepared.entries) {
      if (entry.kind !== "delete" && isTooLongToStore(entry)) {
        refused.push({ path: entry.path, op: "write", reason: "name-too-long" });
        continue;
      }
      const op = entry.kind === "delete" ? "delete" : "write";
      const mountRoot = readOnlyRootOf(db, entry.path, op === "delete");
      if (mountRoot !== undefined) {
        skipped.push({ path: entry.path, mountRoot, op, reason: "read-only" });
        continue;
      }
      applied += 1;
      if (entry.kind === "delete") applyDelete(db, entry.path, stamps, now);
      else applyLive(db, entry, prepared.manifests.get(entry as StoredFileChange), stamps, now, skipped);
    }
    return refused.length > 0 ? { applied, skipped, refused } : { applied, skipped };
  });
}

/**
 * A live entry whose path or link target Linux would refuse (ENAMETOOLONG).
 * A delete always applies: it can only remove such a name, never make one.
 */
function isTooLongToStore(entry: StoredLiveChange): boolean {
  return isNameTooLong(entry.path) || (entry.kind === "symlink" && isTargetTooLong(entry.target));
}

/** Lazily bumped revs for one apply: `entry` for what was sent, `side` for what the apply had to add. */
interface Stamps {
  entry(): number;
  side(): number;
}

function applyDelete(db: Database, path: string, stamps: Stamps, now: number): void {
  const found = resolvePath(db, path, { followFinal: false, followParents: false }, "sync");
  if (found.kind !== "found") return;
  const { node } = found;
  removeTree(db, found.parent, found.name, Number(node.inode), node.type === "dir", path, stamps.entry(), now, true);
}

function applyLive(
  db: Database,
  entry: StoredLiveChange,
  manifest: string | undefined,
  stamps: Stamps,
  now: number,
  skipped: SkippedEntry[],
): void {
  const parent = ensureParents(db, entry, stamps, now, skipped);
  if (parent === undefined) return;
  const name = segmentsOf(entry.path).at(-1) as string;
  const existingInode = lookup(db, parent, name);
  const existing = existingInode === undefined ? undefined : (getNode(db, existingInode) as NodeRow);
  const mode = entry.mode & MODE_MASK;

  if (existing !== undefined && isSame(existing, entry, manifest)) return;
  const rev = stamps.entry();

  if (entry.kind === "dir" && existing?.type === "dir") {
    db.run("UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ? WHERE inode = ?", mode, entry.mtime, rev, existing.inode);
    return;
  }
  const sole = existing?.type === "file" && linkCount(db, Number(existing.inode)) === 1;
  if (entry.kind === "file" && sole && existing?.manifest_hash === manifest) {
    // Same content, new mode (a chmod): no chunk work.
    db.run("UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ? WHERE inode = ?", mode, entry.mtime, rev, existing.inode);
    return;
  }
  if (entry.kind === "file" && sole && existing !== undefined) {
    const inode = Number(existing.inode);
    dropChunks(db, inode, now);
    saveManifest(db, manifest as string, entry.chunks, now);
    db.run(
      "UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ?, size = ?, manifest_hash = ? WHERE inode = ?",
      mode,
      entry.mtime,
      rev,
      entry.size,
      manifest as string,
      inode,
    );
    linkChunks(db, inode, entry.chunks);
    return;
  }
  if (existing !== undefined) {
    // A type change, a symlink, or a hardlinked file: this name gets a node of its own.
    removeTree(db, parent, name, Number(existing.inode), existing.type === "dir", entry.path, rev, now, false);
  }
  let inode: number;
  if (entry.kind === "file") {
    saveManifest(db, manifest as string, entry.chunks, now);
    inode = insertNode(db, { type: "file", mode, mtime: entry.mtime, rev, size: entry.size, manifestHash: manifest });
    linkChunks(db, inode, entry.chunks);
  } else if (entry.kind === "dir") {
    inode = insertNode(db, { type: "dir", mode, mtime: entry.mtime, rev });
  } else {
    inode = insertNode(db, { type: "symlink", mode, mtime: entry.mtime, rev, linkTarget: entry.target });
  }
  addDirent(db, parent, name, inode);
}

/**
 * True when applying would change nothing: same content and mode (mtime is
 * not compared). The reference ignores a file's mode here, which drops every
 * chmod of a synced file for good; we compare it.
 */
function isSame(node: NodeRow, entry: StoredLiveChange, manifest: string | undefined): boolean {
  const mode = entry.mode & MODE_MASK;
  if (entry.kind === "file")
    return node.type === "file" && node.manifest_hash === manifest && Number(node.mode) === mode;
  if (entry.kind === "dir") return node.type === "dir" && Number(node.mode) === mode;
  return node.type === "symlink" && node.link_target === entry.target && Number(node.mode) === mode;
}

/**
 * Walks to the entry's parent directory by real dirents, creating missing
 * ones (0o755, the entry's mtime). Any non-directory ancestor — a symlink
 * included — is replaced by a directory, unless that would remove a
 * read-only mount. The reference writes through a symlinked ancestor to its
 * real path instead; that can land the entry in an unrelated subtree, and
 * our convergence fuzz showed the copies then never agree. Sync paths name
 * dirents on the sender, so a directory is what the sender has there.
 */
function ensureParents(
  db: Database,
  entry: StoredLiveChange,
  stamps: Stamps,
  now: number,
  skipped: SkippedEntry[],
): number | undefined {
  const segments = segmentsOf(entry.path).slice(0, -1);
  let dir = ROOT_INODE;
  let path = "/";
  for (const name of segments) {
    path = joinPath(path, name);
    const node = lookupNode(db, dir, name);
    if (node?.type === "dir") {
      dir = Number(node.inode);
      continue;
    }
    if (node !== undefined) {
      const guarded = readOnlyRootOf(db, path, true);
      if (guarded !== undefined) {
        skipped.push({ path: entry.path, mountRoot: guarded, op: "write", reason: "read-only" });
        return undefined;
      }
      removeTree(db, dir, name, Number(node.inode), false, path, stamps.side(), now, false);
    }
    const created = insertNode(db, { type: "dir", mode: DEFAULT_DIR_MODE, mtime: entry.mtime, rev: stamps.side() });
    addDirent(db, dir, name, created);
    dir = created;
  }
  return dir;
}

/** Chunk layout and presence, checked before the apply touches anything. */
function checkFile(db: Database, entry: StoredFileChange): void {
  let total = 0;
  entry.chunks.forEach((chunk, i) => {
    const last = i === entry.chunks.length - 1;
    const sizeOk = last ? chunk.size > 0 && chunk.size <= CHUNK_SIZE : chunk.size === CHUNK_SIZE;
    if (!sizeOk || !/^[0-9a-f]{64}$/.test(chunk.hash)) {
      throw fsError("EINVAL", "sync", entry.path, `bad chunk layout at chunk ${i}`);
    }
    total += chunk.size;
  });
  if (total !== entry.size) throw fsError("EINVAL", "sync", entry.path, "chunk sizes do not add up to the file size");
  for (const chunk of entry.chunks) {
    if (!hasBlob(db, chunk.hash)) throw fsError("EUNKNOWN_HASH", "sync", entry.path, `missing object ${chunk.hash}`);
  }
}

import { hasBlob } from "../blobs.js";
import { CHUNK_SIZE, DEFAULT_DIR_MODE, MODE_MASK, ROOT_INODE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { removeTree } from "../fs/rm.js";
import { linkChunks } from "../fs/write-file.js";
import { manifestHash, saveManifest } from "../manifest.js";
import { readOnlyRootOf } from "../mounts.js";
import { addDirent, dropChunks, getNode, insertNode, linkCount, lookup, type NodeRow, unlinkName } from "../nodes.js";
import { joinPath, segmentsOf } from "../path.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import type { ChangeEntry, FileChange, LiveChange, SkippedEntry } from "./types.js";

/**
 * `upstream`: entries from a sync peer (idempotent re-sends are dropped).
 * `local`: an outside writer (senderRev 0) whose entries are ordinary writes.
 */
export type ApplySource = "upstream" | "local";

export interface ApplyResult {
  /** Entries that were processed (deletes count even when nothing was there). */
  applied: number;
  skipped: SkippedEntry[];
}

/** A file entry with its manifest hash worked out ahead (hashing is async; the apply is not). */
export interface PreparedEntries {
  entries: readonly ChangeEntry[];
  manifests: Map<FileChange, string>;
}

export async function prepareEntries(entries: readonly ChangeEntry[], db?: Database): Promise<PreparedEntries> {
  const manifests = new Map<FileChange, string>();
  for (const entry of entries) if (entry.kind === "file") manifests.set(entry, await manifestHash(entry.chunks, db));
  return { entries, manifests };
}

/**
 * Applies a batch of entries in one transaction: all or nothing. File entries
 * are checked (chunk layout, every chunk present) before anything changes.
 * Missing parents are created; a non-directory parent is replaced; a type
 * conflict removes the local subtree without tombstones (the incoming entry
 * supersedes it) — last writer wins. Everything applied is stamped with one
 * new rev, bumped only if something changed. Entries under a read-only mount
 * are skipped and reported.
 */
export function applyChanges(db: Database, prepared: PreparedEntries, source: ApplySource, now: number): ApplyResult {
  for (const entry of prepared.entries) if (entry.kind === "file") checkFile(db, entry);
  return db.transaction(() => {
    let rev = 0;
    const stamp = (): number => {
      if (rev === 0) rev = bumpRev(db);
      return rev;
    };
    const skipped: SkippedEntry[] = [];
    let applied = 0;
    for (const entry of prepared.entries) {
      const op = entry.kind === "delete" ? "delete" : "write";
      const mountRoot = readOnlyRootOf(db, entry.path, op === "delete");
      if (mountRoot !== undefined) {
        skipped.push({ path: entry.path, mountRoot, op, reason: "read-only" });
        continue;
      }
      applied += 1;
      if (entry.kind === "delete") applyDelete(db, entry.path, stamp, now);
      else applyLive(db, entry, prepared.manifests.get(entry as FileChange), source, stamp, now, skipped);
    }
    return { applied, skipped };
  });
}

function applyDelete(db: Database, path: string, stamp: () => number, now: number): void {
  const found = resolvePath(db, path, { followFinal: false, followParents: false }, "sync");
  if (found.kind !== "found") return;
  const { node } = found;
  removeTree(db, found.parent, found.name, Number(node.inode), node.type === "dir", path, stamp(), now, true);
}

function applyLive(
  db: Database,
  entry: LiveChange,
  manifest: string | undefined,
  source: ApplySource,
  stamp: () => number,
  now: number,
  skipped: SkippedEntry[],
): void {
  const parent = ensureParents(db, entry, stamp, now, skipped);
  if (parent === undefined) return;
  const name = segmentsOf(entry.path).at(-1) as string;
  const existingInode = lookup(db, parent, name);
  const existing = existingInode === undefined ? undefined : (getNode(db, existingInode) as NodeRow);
  const mode = entry.mode & MODE_MASK;

  if (existing !== undefined && isSame(existing, entry, manifest, source)) return;
  const rev = stamp();

  if (entry.kind === "dir" && existing?.type === "dir") {
    db.run("UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ? WHERE inode = ?", mode, entry.mtime, rev, existing.inode);
    return;
  }
  if (entry.kind === "file" && existing?.type === "file" && linkCount(db, Number(existing.inode)) === 1) {
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

/** True when applying would change nothing the wire compares (file mode/mtime are not compared upstream). */
function isSame(node: NodeRow, entry: LiveChange, manifest: string | undefined, source: ApplySource): boolean {
  const mode = entry.mode & MODE_MASK;
  if (entry.kind === "file") {
    return node.type === "file" && node.manifest_hash === manifest && (source === "upstream" || node.mode === mode);
  }
  if (entry.kind === "dir") return node.type === "dir" && Number(node.mode) === mode;
  return node.type === "symlink" && node.link_target === entry.target && Number(node.mode) === mode;
}

/**
 * Walks to the entry's parent directory, creating missing ones (0o755, the
 * entry's mtime). A symlinked ancestor that leads to a directory is followed,
 * so the write lands at its real path; any other non-directory ancestor is
 * replaced, unless that would remove a read-only mount.
 */
function ensureParents(
  db: Database,
  entry: LiveChange,
  stamp: () => number,
  now: number,
  skipped: SkippedEntry[],
): number | undefined {
  const segments = segmentsOf(entry.path).slice(0, -1);
  let dir = ROOT_INODE;
  let path = "/";
  for (const name of segments) {
    path = joinPath(path, name);
    const child = lookup(db, dir, name);
    if (child === undefined) {
      const created = insertNode(db, { type: "dir", mode: DEFAULT_DIR_MODE, mtime: entry.mtime, rev: stamp() });
      addDirent(db, dir, name, created);
      dir = created;
      continue;
    }
    const node = getNode(db, child) as NodeRow;
    if (node.type === "dir") {
      dir = child;
      continue;
    }
    if (node.type === "symlink") {
      const target = resolvePath(db, path, { followFinal: true }, "sync");
      if (target.kind === "found" && target.node.type === "dir") {
        const guardedTarget = readOnlyRootOf(db, target.path);
        if (guardedTarget !== undefined) {
          skipped.push({ path: entry.path, mountRoot: guardedTarget, op: "write", reason: "read-only" });
          return undefined;
        }
        dir = Number(target.node.inode);
        path = target.path;
        continue;
      }
    }
    const guarded = readOnlyRootOf(db, path, true);
    if (guarded !== undefined) {
      skipped.push({ path: entry.path, mountRoot: guarded, op: "write", reason: "read-only" });
      return undefined;
    }
    const rev = stamp();
    removeTree(db, dir, name, child, false, path, rev, now, false);
    const created = insertNode(db, { type: "dir", mode: DEFAULT_DIR_MODE, mtime: entry.mtime, rev });
    addDirent(db, dir, name, created);
    dir = created;
  }
  return dir;
}

/** Chunk layout and presence, checked before the apply touches anything. */
function checkFile(db: Database, entry: FileChange): void {
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

import { ROOT_INODE } from "../constants.js";
import type { Database } from "../database.js";
import type { ChunkRef } from "../manifest.js";
import { type NodeRow, pathOfInode } from "../nodes.js";
import { joinPath, segmentsOf } from "../path.js";
import { resolvePath } from "../resolve.js";
import { compareCursors } from "./cursor.js";
import { echoRevsBetween } from "./echo.js";
import type { Cursor } from "./types.js";
import type { StoredChange } from "./wire.js";

/** A path due to be sent, at the highest rev anything touched it. */
export interface PlannedChange {
  rev: number;
  path: string;
}

/**
 * Coalesces everything in `(after, through]` into one planned change per
 * path, sorted by (rev, path). Candidates are inodes stamped in the range,
 * expanded to every name they have (hardlinks), and tombstones; a path keeps
 * its highest rev. Paths holding an `ignore` segment are left out (the caller
 * still moves its cursor past them). The plan holds paths, not contents:
 * contents are read when each entry is emitted (`readChange`).
 */
export function planChanges(
  db: Database,
  after: Cursor,
  through: Cursor,
  ignore: readonly string[] = [],
  /** The peer the plan is for: paths whose newest change came from it are not offered back (see echo.ts). */
  peer?: string,
): PlannedChange[] {
  const revs = new Map<string, number>();
  const note = (path: string, rev: number): void => {
    if ((revs.get(path) ?? -1) < rev) revs.set(path, rev);
  };
  const dirPaths = new Map<number, string | null>([[ROOT_INODE, "/"]]);
  const nodes = db.all<{ inode: number; rev: number }>(
    "SELECT inode, rev FROM vfs_nodes WHERE rev >= ? AND rev <= ? AND inode <> ?",
    after.rev,
    through.rev,
    ROOT_INODE,
  );
  for (const { inode, rev } of nodes) {
    for (const path of pathsOf(db, Number(inode), dirPaths)) note(path, Number(rev));
  }
  const tombstones = db.all<{ path: string; rev: number }>(
    "SELECT path, max(rev) AS rev FROM vfs_changes WHERE rev >= ? AND rev <= ? GROUP BY path",
    after.rev,
    through.rev,
  );
  for (const { path, rev } of tombstones) note(path, Number(rev));

  const ignored = new Set(ignore);
  const echoes = peer === undefined ? new Set<number>() : echoRevsBetween(db, peer, after.rev, through.rev);
  const plan: PlannedChange[] = [];
  for (const [path, rev] of revs) {
    if (echoes.has(rev)) continue;
    const change = { rev, path };
    if (compareCursors(change, after) <= 0 || compareCursors(change, through) > 0) continue;
    if (ignored.size > 0 && segmentsOf(path).some((segment) => ignored.has(segment))) continue;
    plan.push(change);
  }
  return plan.sort((a, b) => compareCursors(a, b));
}

/**
 * The entry for a planned path in its current state: live beats a tombstone,
 * and a path with no live node is a delete. `null` when the path was changed
 * again past `through` after planning: a later pull delivers it, so the
 * cursor never passes a state it did not send. In the store's form (hex
 * hashes): `toWire` before it is sent.
 */
export function readChange(db: Database, planned: PlannedChange, through?: Cursor): StoredChange | null {
  const node = liveNode(db, planned.path);
  if (node === undefined) return { kind: "delete", rev: planned.rev, path: planned.path };
  if (through !== undefined && Number(node.rev) > through.rev) return null;
  return entryOf(db, node, planned.path, planned.rev);
}

/** The path's current state as a live entry stamped with its node's rev, or null when absent. In the store's form. */
export function readEntry(db: Database, path: string): StoredChange | null {
  const node = liveNode(db, path);
  return node === undefined ? null : entryOf(db, node, path, Number(node.rev));
}

/** Sync paths are real dirent paths: the walk follows no symlink at all. */
function liveNode(db: Database, path: string): NodeRow | undefined {
  if (path === "/") return undefined;
  const found = resolvePath(db, path, { followFinal: false, followParents: false }, "sync");
  return found.kind === "found" ? found.node : undefined;
}

function entryOf(db: Database, node: NodeRow, path: string, rev: number): StoredChange {
  const mode = Number(node.mode);
  const mtime = Number(node.mtime);
  if (node.type === "dir") return { kind: "dir", rev, path, mode, mtime };
  if (node.type === "symlink") return { kind: "symlink", rev, path, target: node.link_target ?? "", mode, mtime };
  const chunks = db
    .all<ChunkRef>("SELECT hash, size FROM vfs_chunks WHERE inode = ? ORDER BY idx", node.inode)
    .map(({ hash, size }) => ({ hash, size: Number(size) }));
  return { kind: "file", rev, path, mode, mtime, size: Number(node.size), chunks };
}

/** Every path naming `inode`; directories' own paths are memoized in `dirPaths`. */
function pathsOf(db: Database, inode: number, dirPaths: Map<number, string | null>): string[] {
  const names = db.all<{ parent_inode: number; name: string }>(
    "SELECT parent_inode, name FROM vfs_dirents WHERE child_inode = ?",
    inode,
  );
  const out: string[] = [];
  for (const { parent_inode, name } of names) {
    const parent = pathOfInode(db, Number(parent_inode), dirPaths);
    if (parent !== null) out.push(joinPath(parent, name));
  }
  return out;
}

import { ROOT_INODE } from "./constants.js";
import type { Database } from "./database.js";
import { joinPath } from "./path.js";
import type { NodeType } from "./types.js";

/** One `vfs_nodes` row as dofs reads it. */
export interface NodeRow {
  inode: number;
  type: NodeType;
  mode: number;
  mtime: number;
  rev: number;
  size: number;
  manifest_hash: string | null;
  link_target: string | null;
  mount_root: string | null;
}

const NODE_COLUMNS = "inode, type, mode, mtime, rev, size, manifest_hash, link_target, mount_root";

export function getNode(db: Database, inode: number): NodeRow | undefined {
  return db.one<NodeRow>(`SELECT ${NODE_COLUMNS} FROM vfs_nodes WHERE inode = ?`, inode);
}

/** The node a name points at, in one query (the path walk's hot path). */
export function lookupNode(db: Database, parent: number, name: string): NodeRow | undefined {
  return db.one<NodeRow>(
    `SELECT n.inode AS inode, n.type AS type, n.mode AS mode, n.mtime AS mtime, n.rev AS rev, n.size AS size,
            n.manifest_hash AS manifest_hash, n.link_target AS link_target, n.mount_root AS mount_root
       FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
      WHERE d.parent_inode = ? AND d.name = ?`,
    parent,
    name,
  );
}

export function lookup(db: Database, parent: number, name: string): number | undefined {
  const row = db.one<{ child_inode: number }>(
    "SELECT child_inode FROM vfs_dirents WHERE parent_inode = ? AND name = ?",
    parent,
    name,
  );
  return row?.child_inode;
}

/** A child's name joined to its node, as listings need it. */
export interface ChildRow extends NodeRow {
  name: string;
}

const CHILD_COLUMNS = `d.name AS name, n.inode AS inode, n.type AS type, n.mode AS mode, n.mtime AS mtime,
  n.rev AS rev, n.size AS size, n.manifest_hash AS manifest_hash, n.link_target AS link_target,
  n.mount_root AS mount_root`;

/** Children in byte order of their names (SQLite's BINARY collation on UTF-8 text). */
export function listChildren(db: Database, parent: number, limit = -1, offset = 0): ChildRow[] {
  return db.all<ChildRow>(
    `SELECT ${CHILD_COLUMNS} FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
      WHERE d.parent_inode = ? ORDER BY d.name LIMIT ? OFFSET ?`,
    parent,
    limit,
    offset,
  );
}

/** The next `limit` children after `after` (keyset paging: no O(offset) scan for huge directories). */
export function listChildrenAfter(db: Database, parent: number, after: string | null, limit: number): ChildRow[] {
  return db.all<ChildRow>(
    `SELECT ${CHILD_COLUMNS} FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
      WHERE d.parent_inode = ? AND (? IS NULL OR d.name > ?) ORDER BY d.name LIMIT ?`,
    parent,
    after,
    after,
    limit,
  );
}

export function hasChildren(db: Database, parent: number): boolean {
  return db.one("SELECT 1 AS x FROM vfs_dirents WHERE parent_inode = ? LIMIT 1", parent) !== undefined;
}

export interface NewNode {
  type: NodeType;
  mode: number;
  mtime: number;
  rev: number;
  size?: number;
  manifestHash?: string | null;
  linkTarget?: string | null;
}

export function insertNode(db: Database, node: NewNode): number {
  // RETURNING costs ~20x a plain insert on this table in SQLite 3.4x; last_insert_rowid() does not.
  db.run(
    `INSERT INTO vfs_nodes (type, mode, mtime, rev, size, manifest_hash, link_target)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    node.type,
    node.mode,
    node.mtime,
    node.rev,
    node.size ?? 0,
    node.manifestHash ?? null,
    node.linkTarget ?? null,
  );
  return Number(db.one<{ id: number }>("SELECT last_insert_rowid() AS id")?.id);
}

export function addDirent(db: Database, parent: number, name: string, child: number): void {
  db.run("INSERT INTO vfs_dirents (parent_inode, name, child_inode) VALUES (?, ?, ?)", parent, name, child);
}

/**
 * Removes one name. When it was the node's last name the node goes too, with
 * its chunk rows; the blobs they named get `last_seen = now` so `gc` keeps
 * them for a full safety window after they became unreferenced (a stream
 * opened before the delete may still be reading them).
 */
export function unlinkName(db: Database, parent: number, name: string, child: number, now: number): void {
  db.run("DELETE FROM vfs_dirents WHERE parent_inode = ? AND name = ?", parent, name);
  if (db.one("SELECT 1 AS x FROM vfs_dirents WHERE child_inode = ? LIMIT 1", child) !== undefined) return;
  dropChunks(db, child, now);
  db.run("DELETE FROM vfs_nodes WHERE inode = ?", child);
}

/** Deletes a file's chunk rows, touching the blobs they referenced (see `unlinkName`). */
export function dropChunks(db: Database, inode: number, now: number): void {
  db.run("UPDATE vfs_blobs SET last_seen = ? WHERE hash IN (SELECT hash FROM vfs_chunks WHERE inode = ?)", now, inode);
  db.run("DELETE FROM vfs_chunks WHERE inode = ?", inode);
}

/** Number of names pointing at an inode. */
export function linkCount(db: Database, inode: number): number {
  return Number(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_dirents WHERE child_inode = ?", inode)?.n ?? 0);
}

/**
 * The path of `inode` by its first name at every level, walking up the
 * dirents; null when it is not reachable from the root (a node without a
 * name). `memo` keeps the directories' paths found on the way (`/` for the
 * root), for a caller that asks about many.
 */
export function pathOfInode(
  db: Database,
  inode: number,
  memo: Map<number, string | null> = new Map([[ROOT_INODE, "/"]]),
): string | null {
  const known = memo.get(inode);
  if (known !== undefined) return known;
  const up = db.one<{ parent_inode: number; name: string }>(
    "SELECT parent_inode, name FROM vfs_dirents WHERE child_inode = ? LIMIT 1",
    inode,
  );
  const parent = up === undefined ? null : pathOfInode(db, Number(up.parent_inode), memo);
  const path = parent === null || up === undefined ? null : joinPath(parent, up.name);
  memo.set(inode, path);
  return path;
}

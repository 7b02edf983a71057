import { ROOT_INODE } from "./constants.js";
import type { Database } from "./database.js";
import { fsError } from "./errors.js";
import { lookup } from "./nodes.js";
import { isAtOrUnder, segmentsOf } from "./path.js";

/** What a mount lets the workspace do under its root (its `mode` option; "mount mode" is computerd's fuse/shim/none). */
export type MountAccess = "read-only" | "read-write";

/**
 * Throws EROFS when `path` is at, under or above a read-only mount root.
 * "Above" matters because removing or re-moding an ancestor would change the
 * mount too. Callers run it on the path as given (before resolution, so EROFS
 * beats ENOENT/EEXIST) and again on the resolved real path (so a symlink
 * cannot smuggle a write into a mount).
 */
export function assertWritable(db: Database, path: string, syscall: string): void {
  for (const root of readOnlyRoots(db)) {
    if (isAtOrUnder(path, root) || isAtOrUnder(root, path)) throw fsError("EROFS", syscall, path);
  }
}

/**
 * The read-only roots, read once per database and again after `setMount`
 * (the only writer of `_vfs_mounts`): every write checks them, and a
 * query per write was a measurable share of a FUSE create. Only a read
 * outside any transaction is kept, so a `setMount` that rolls back leaves
 * nothing stale behind.
 */
const readOnly = new WeakMap<Database, readonly string[]>();

/** The roots of the read-only mounts. */
export function readOnlyRoots(db: Database): readonly string[] {
  const known = readOnly.get(db);
  if (known !== undefined) return known;
  const roots = db
    .all<{ root: string }>("SELECT root FROM _vfs_mounts WHERE mode = 'read-only'")
    .map(({ root }) => root);
  if (!db.inTransaction) readOnly.set(db, roots);
  return roots;
}

/**
 * The read-only root `path` is at or under, else one below `path` when
 * `includeBelow` is set (replacing or deleting `path` would take it along).
 */
export function readOnlyRootOf(db: Database, path: string, includeBelow = false): string | undefined {
  const roots = readOnlyRoots(db);
  const guarding = roots.find((root) => isAtOrUnder(path, root));
  if (guarding || !includeBelow) return guarding;
  return roots.find((root) => isAtOrUnder(root, path));
}

/** Records a mount root and its mode; the mount machinery (materialize, index) lives in `@cloudflare/computer`. */
export function setMount(db: Database, root: string, kind: string, mode: MountAccess, indexed: boolean): void {
  // Read again at the next check, whether this commits or rolls back.
  readOnly.delete(db);
  db.run(
    `INSERT INTO _vfs_mounts (root, kind, indexed, mode) VALUES (?, ?, ?, ?)
     ON CONFLICT (root) DO UPDATE SET kind = excluded.kind, indexed = excluded.indexed, mode = excluded.mode`,
    root,
    kind,
    indexed ? 1 : 0,
    mode,
  );
}

export interface MountState {
  kind: string;
  mode: MountAccess;
  indexed: boolean;
}

/** The recorded state of a mount root, or undefined when none is recorded. */
export function mountState(db: Database, root: string): MountState | undefined {
  const row = db.one<{ kind: string; mode: MountAccess; indexed: number }>(
    "SELECT kind, mode, indexed FROM _vfs_mounts WHERE root = ?",
    root,
  );
  return row === undefined ? undefined : { kind: row.kind, mode: row.mode, indexed: Number(row.indexed) === 1 };
}

/**
 * Stamps `mount_root` on the node at `root` and every node below it, so a
 * node tells which mount filled it. Metadata only: no rev is used. Returns
 * the nodes stamped (0 when `root` does not exist).
 */
export function stampMountRoot(db: Database, root: string): number {
  let inode: number | undefined = ROOT_INODE;
  for (const name of segmentsOf(root)) {
    inode = lookup(db, inode, name);
    if (inode === undefined) return 0;
  }
  db.run(
    `WITH RECURSIVE tree(inode) AS (
       SELECT ? UNION SELECT d.child_inode FROM vfs_dirents d JOIN tree t ON d.parent_inode = t.inode
     )
     UPDATE vfs_nodes SET mount_root = ? WHERE inode IN (SELECT inode FROM tree)`,
    inode,
    root,
  );
  return db.changes();
}

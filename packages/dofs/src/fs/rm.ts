import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { assertWritable } from "../mounts.js";
import { hasChildren, listChildren, unlinkName } from "../nodes.js";
import { joinPath } from "../path.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";

const SYSCALL = "rm";

/**
 * Removes a path without following its last segment. Every removed path gets
 * a tombstone, all at one rev, so a peer can replay the delete path by path.
 * A file's data goes when its last hardlink goes.
 */
export function rm(db: Database, path: string, recursive: boolean, force: boolean, now: number): void {
  if (path === "/") throw fsError("EPERM", SYSCALL, path);
  assertWritable(db, path, SYSCALL);
  db.transaction(() => {
    const target = resolvePath(db, path, { followFinal: false }, SYSCALL);
    if (target.kind !== "found") {
      if (force) return;
      throw fsError("ENOENT", SYSCALL, path);
    }
    if (target.path !== path) assertWritable(db, target.path, SYSCALL);
    const { node } = target;
    if (node.type === "dir" && !recursive && hasChildren(db, node.inode)) {
      throw fsError("ENOTEMPTY", SYSCALL, path);
    }
    const rev = bumpRev(db);
    removeTree(db, target.parent, target.name, node.inode, node.type === "dir", target.path, rev, now, true);
  });
}

/**
 * Unlinks `name` and, for a directory, everything under it (children first),
 * writing one tombstone per path unless `tombstones` is off (a sync apply
 * replacing a subtree that the incoming entry supersedes). Links are
 * unlinked, never entered.
 */
export function removeTree(
  db: Database,
  parent: number,
  name: string,
  inode: number,
  isDir: boolean,
  path: string,
  rev: number,
  now: number,
  tombstones: boolean,
): void {
  if (isDir) {
    for (const child of listChildren(db, inode)) {
      const childPath = joinPath(path, child.name);
      removeTree(db, inode, child.name, child.inode, child.type === "dir", childPath, rev, now, tombstones);
    }
  }
  unlinkName(db, parent, name, inode, now);
  if (tombstones) db.run("INSERT INTO vfs_changes (rev, path, op) VALUES (?, ?, 'delete')", rev, path);
}

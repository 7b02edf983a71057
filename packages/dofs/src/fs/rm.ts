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
    removeTree(db, target.parent, target.name, node.inode, node.type === "dir", target.path, rev, now);
  });
}

/**
 * Unlinks `name` and, for a directory, everything under it (children first),
 * writing one tombstone per path. Links are unlinked, never entered.
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
): void {
  if (isDir) {
    for (const child of listChildren(db, inode)) {
      removeTree(db, inode, child.name, child.inode, child.type === "dir", joinPath(path, child.name), rev, now);
    }
  }
  unlinkName(db, parent, name, inode, now);
  db.run("INSERT INTO vfs_changes (rev, path, op) VALUES (?, ?, 'delete')", rev, path);
}

import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { assertWritable } from "../mounts.js";
import { addDirent, hasChildren, unlinkName } from "../nodes.js";
import { isAtOrUnder } from "../path.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import { walkTree } from "./walk.js";

const SYSCALL = "rename";

/**
 * Moves a name (internal: FUSE and the sync apply use it; `workspace.fs`
 * does not expose it). On the wire a rename is tombstones for every old path
 * plus live entries at every new path, all at one rev, so every inode of the
 * moved subtree is stamped with the new rev. mtimes are untouched.
 */
export function rename(db: Database, from: string, to: string, now: number): void {
  if (from === "/" || to === "/") throw fsError("EINVAL", SYSCALL, from === "/" ? from : to);
  assertWritable(db, from, SYSCALL);
  assertWritable(db, to, SYSCALL);
  db.transaction(() => {
    const source = resolvePath(db, from, { followFinal: false }, SYSCALL);
    if (source.kind !== "found") throw fsError("ENOENT", SYSCALL, from);
    const dest = resolvePath(db, to, { followFinal: false }, SYSCALL);
    if (dest.kind === "blocked") throw fsError(dest.reason === "missing" ? "ENOENT" : "ENOTDIR", SYSCALL, to);
    if (source.path !== from) assertWritable(db, source.path, SYSCALL);
    if (dest.path !== to) assertWritable(db, dest.path, SYSCALL);
    const moving = source.node;
    const isDir = moving.type === "dir";
    if (isDir && isAtOrUnder(dest.path, source.path) && dest.path !== source.path) {
      throw fsError("EINVAL", SYSCALL, to);
    }
    if (dest.kind === "found") {
      // Same inode under both names (itself, or a hardlink): POSIX says do nothing.
      if (dest.node.inode === moving.inode) return;
      const destIsDir = dest.node.type === "dir";
      if (isDir && !destIsDir) throw fsError("ENOTDIR", SYSCALL, to);
      if (!isDir && destIsDir) throw fsError("EISDIR", SYSCALL, to);
      if (destIsDir && hasChildren(db, dest.node.inode)) throw fsError("ENOTEMPTY", SYSCALL, to);
    }
    const rev = bumpRev(db);
    const oldPaths = [source.path];
    const inodes = [moving.inode];
    if (isDir) {
      for (const entry of walkTree(db, moving.inode, source.path)) {
        oldPaths.push(entry.path);
        inodes.push(entry.node.inode);
      }
    }
    if (dest.kind === "found") unlinkName(db, dest.parent, dest.name, dest.node.inode, now);
    db.run("DELETE FROM vfs_dirents WHERE parent_inode = ? AND name = ?", source.parent, source.name);
    addDirent(db, dest.parent, dest.name, moving.inode);
    for (const path of oldPaths) db.run("INSERT INTO vfs_changes (rev, path, op) VALUES (?, ?, 'delete')", rev, path);
    for (const inode of inodes) db.run("UPDATE vfs_nodes SET rev = ? WHERE inode = ?", rev, inode);
  });
}

import { SYMLINK_MODE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { assertWritable } from "../mounts.js";
import { addDirent, insertNode } from "../nodes.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";

/** Sets permission bits (already masked), following links; bumps rev and mtime. */
export function chmod(db: Database, path: string, mode: number, now: number): void {
  assertWritable(db, path, "chmod");
  db.transaction(() => {
    const target = resolvePath(db, path, { followFinal: true }, "chmod");
    if (target.kind !== "found") throw fsError("ENOENT", "chmod", path);
    if (target.path !== path) assertWritable(db, target.path, "chmod");
    const rev = bumpRev(db);
    db.run("UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ? WHERE inode = ?", mode, now, rev, target.node.inode);
  });
}

/**
 * Creates a symlink holding `target` verbatim (it may dangle). Like mkdir,
 * the parents must be real directories: a symlinked parent is ENOTDIR.
 */
export function symlink(db: Database, target: string, path: string, now: number): void {
  if (path === "/") throw fsError("EEXIST", "symlink", path);
  assertWritable(db, path, "symlink");
  db.transaction(() => {
    const at = resolvePath(db, path, { followFinal: false, followParents: false }, "symlink");
    if (at.kind === "found") throw fsError("EEXIST", "symlink", path);
    if (at.kind === "blocked") throw fsError(at.reason === "missing" ? "ENOENT" : "ENOTDIR", "symlink", path);
    const rev = bumpRev(db);
    const inode = insertNode(db, { type: "symlink", mode: SYMLINK_MODE, mtime: now, rev, linkTarget: target });
    addDirent(db, at.parent, at.name, inode);
  });
}

import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { assertWritable } from "../mounts.js";
import { addDirent } from "../nodes.js";
import { resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";

const SYSCALL = "link";

/**
 * Adds a second name for a file (internal). The inode is stamped with the new
 * rev so the next coalesce sends every one of its names. Only files can be
 * linked: directories and symlinks are EPERM, as on Linux for directories.
 */
export function link(db: Database, existing: string, path: string): void {
  assertWritable(db, existing, SYSCALL);
  assertWritable(db, path, SYSCALL);
  db.transaction(() => {
    const source = resolvePath(db, existing, { followFinal: false }, SYSCALL);
    if (source.kind !== "found") throw fsError("ENOENT", SYSCALL, existing);
    if (source.node.type !== "file") throw fsError("EPERM", SYSCALL, existing);
    const dest = resolvePath(db, path, { followFinal: false }, SYSCALL);
    if (dest.kind === "found") throw fsError("EEXIST", SYSCALL, path);
    if (dest.kind === "blocked") throw fsError(dest.reason === "missing" ? "ENOENT" : "ENOTDIR", SYSCALL, path);
    if (dest.path !== path) assertWritable(db, dest.path, SYSCALL);
    const rev = bumpRev(db);
    addDirent(db, dest.parent, dest.name, source.node.inode);
    db.run("UPDATE vfs_nodes SET rev = ? WHERE inode = ?", rev, source.node.inode);
  });
}

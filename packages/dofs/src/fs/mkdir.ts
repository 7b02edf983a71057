import { DEFAULT_DIR_MODE, ROOT_INODE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { assertWritable } from "../mounts.js";
import { addDirent, getNode, insertNode, lookup } from "../nodes.js";
import { segmentsOf } from "../path.js";
import { bumpRev } from "../schema.js";

const SYSCALL = "mkdir";

/**
 * Creates a directory. The walk never follows a symlink: a symlinked parent
 * is ENOTDIR, like the spec's "parents must be real dirs". `recursive`
 * creates missing ancestors at 0o755 and accepts an existing directory.
 * Even a no-op `recursive` call uses up one rev, as every mutation does.
 */
export function mkdir(db: Database, path: string, mode: number, recursive: boolean, now: number): void {
  if (path === "/") throw fsError("EEXIST", SYSCALL, path);
  assertWritable(db, path, SYSCALL);
  db.transaction(() => {
    const rev = bumpRev(db);
    const segments = segmentsOf(path);
    let dir = ROOT_INODE;
    segments.forEach((name, i) => {
      const isLast = i === segments.length - 1;
      const child = lookup(db, dir, name);
      if (child === undefined) {
        if (!isLast && !recursive) throw fsError("ENOENT", SYSCALL, path);
        const created = insertNode(db, { type: "dir", mode: isLast ? mode : DEFAULT_DIR_MODE, mtime: now, rev });
        addDirent(db, dir, name, created);
        dir = created;
        return;
      }
      const type = getNode(db, child)?.type;
      if (isLast) {
        if (!recursive || type !== "dir") throw fsError("EEXIST", SYSCALL, path);
        return;
      }
      if (type !== "dir") throw fsError("ENOTDIR", SYSCALL, path);
      dir = child;
    });
  });
}

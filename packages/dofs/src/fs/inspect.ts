import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { listChildren, type NodeRow } from "../nodes.js";
import { baseName } from "../path.js";
import { resolvePath } from "../resolve.js";
import type { DirEntry, Stat } from "../types.js";

/** stat (follow = true) and lstat. A missing path or a file used as a parent are both ENOENT. */
export function stat(db: Database, path: string, follow: boolean): Stat {
  const syscall = follow ? "stat" : "lstat";
  const target = resolvePath(db, path, { followFinal: follow }, syscall);
  if (target.kind !== "found") throw fsError("ENOENT", syscall, path);
  return toStat(target.node, path === "/" ? "" : baseName(path));
}

export function toStat(node: NodeRow, name: string): Stat {
  return {
    name,
    inode: Number(node.inode),
    mode: Number(node.mode),
    mtime: Number(node.mtime),
    size: sizeOf(node),
    isFile: node.type === "file",
    isDirectory: node.type === "dir",
    isSymbolicLink: node.type === "symlink",
  };
}

/** Directory: 0. Symlink: UTF-8 length of its target, as `lstat` reports it. */
export function sizeOf(node: NodeRow): number {
  if (node.type === "file") return Number(node.size);
  if (node.type === "symlink") return new TextEncoder().encode(node.link_target ?? "").byteLength;
  return 0;
}

/** One page of a directory, names in byte order. */
export function readdir(db: Database, path: string, limit: number | undefined, offset: number): DirEntry[] {
  const target = resolvePath(db, path, { followFinal: true }, "scandir");
  if (target.kind !== "found") throw fsError("ENOENT", "scandir", path);
  if (target.node.type !== "dir") throw fsError("ENOTDIR", "scandir", path);
  return listChildren(db, target.node.inode, limit ?? -1, offset).map((child) => ({
    name: child.name,
    parentPath: path,
    size: sizeOf(child),
    mtime: Number(child.mtime),
    isFile: child.type === "file",
    isDirectory: child.type === "dir",
    isSymbolicLink: child.type === "symlink",
  }));
}

export function readlink(db: Database, path: string): string {
  const target = resolvePath(db, path, { followFinal: false }, "readlink");
  if (target.kind !== "found") throw fsError("ENOENT", "readlink", path);
  if (target.node.type !== "symlink") throw fsError("EINVAL", "readlink", path);
  return target.node.link_target ?? "";
}

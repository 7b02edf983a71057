import { MAX_SYMLINK_FOLLOWS, ROOT_INODE } from "./constants.js";
import type { Database } from "./database.js";
import { fsError } from "./errors.js";
import { getNode, lookupNode, type NodeRow } from "./nodes.js";
import { isNameTooLong, segmentsOf } from "./path.js";

/** Where a path led. `path` fields are real paths: every followed link replaced by its target. */
export type Resolution =
  | { kind: "found"; node: NodeRow; path: string; parent: number; name: string }
  /** Everything but the last segment exists and is a directory; the last is free. */
  | { kind: "missing"; parent: number; parentPath: string; name: string; path: string }
  /** An ancestor is missing (`"missing"`) or is not a directory (`"notdir"`). */
  | { kind: "blocked"; reason: "missing" | "notdir" };

export interface ResolveOptions {
  /** Follow a symlink in the last segment (stat) or not (lstat, rm, readlink). */
  followFinal: boolean;
  /**
   * Follow symlinks in ancestor segments. mkdir and symlink refuse a symlinked
   * parent (ENOTDIR), so they walk with this off.
   */
  followParents?: boolean;
}

/**
 * Walks a normalized absolute path from the root through `vfs_dirents`.
 * A relative link target resolves from the link's real parent; `..` in a
 * target clamps at `/`; more than MAX_SYMLINK_FOLLOWS follows is ELOOP.
 */
export function resolvePath(db: Database, path: string, options: ResolveOptions, syscall: string): Resolution {
  const followParents = options.followParents ?? true;
  // Pending segments, last one on top, so link targets can be spliced in.
  const pending = segmentsOf(path).reverse();
  // The real directory chain walked so far: inodes[0] is the root.
  const inodes = [ROOT_INODE];
  const names: string[] = [];
  let follows = 0;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    const isLast = pending.length === 0;
    if (name === "..") {
      if (names.length > 0) {
        names.pop();
        inodes.pop();
      }
      continue;
    }
    const dir = inodes[inodes.length - 1] as number;
    const node = lookupNode(db, dir, name);
    if (node === undefined) {
      if (!isLast) return { kind: "blocked", reason: "missing" };
      const parentPath = joinReal(names);
      return { kind: "missing", parent: dir, parentPath, name, path: joinReal([...names, name]) };
    }
    const child = Number(node.inode);
    if (node.type === "symlink" && (isLast ? options.followFinal : followParents)) {
      follows += 1;
      if (follows > MAX_SYMLINK_FOLLOWS) throw fsError("ELOOP", syscall, path);
      const target = node.link_target ?? "";
      // A target naming a segment Linux could not look up (one stored before the limits) fails as Linux would.
      if (isNameTooLong(target)) throw fsError("ENAMETOOLONG", syscall, path);
      if (target.startsWith("/")) {
        inodes.length = 1;
        names.length = 0;
      }
      // `""` and `.` segments name nothing; dropping them keeps `isLast` exact.
      const targetSegments = target.split("/").filter((s) => s !== "" && s !== ".");
      for (let i = targetSegments.length - 1; i >= 0; i--) pending.push(targetSegments[i] as string);
      continue;
    }
    if (isLast) return { kind: "found", node, path: joinReal([...names, name]), parent: dir, name };
    if (node.type !== "dir") return { kind: "blocked", reason: "notdir" };
    inodes.push(child);
    names.push(name);
  }
  // The walk ended on a directory already entered (the root, or a target ending in `.`/`..`).
  const inode = inodes[inodes.length - 1] as number;
  return {
    kind: "found",
    node: getNode(db, inode) as NodeRow,
    path: joinReal(names),
    parent: (inodes.length > 1 ? inodes[inodes.length - 2] : ROOT_INODE) as number,
    name: names[names.length - 1] ?? "",
  };
}

function joinReal(names: string[]): string {
  return `/${names.join("/")}`;
}

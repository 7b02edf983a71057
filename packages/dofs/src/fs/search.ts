import { ROOT_INODE } from "../constants.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { getNode, lookup } from "../nodes.js";
import { compareBytes, segmentsOf } from "../path.js";
import { resolvePath } from "../resolve.js";
import type { FoundEntry, NodeType } from "../types.js";
import { compileGlob } from "./glob.js";
import { walkTree } from "./walk.js";

/** The directory a search starts from (its own link followed). */
export function openDir(db: Database, path: string, syscall: string): number {
  const target = resolvePath(db, path, { followFinal: true }, syscall);
  if (target.kind !== "found") throw fsError("ENOENT", syscall, path);
  if (target.node.type !== "dir") throw fsError("ENOTDIR", syscall, path);
  return Number(target.node.inode);
}

/**
 * Entries below `dir` whose path relative to `dir` matches `pattern` (all
 * when empty), pre-order, paged over matches. Paths keep the caller's spelling
 * of `dir`.
 */
export function find(
  db: Database,
  dir: string,
  pattern: string,
  limit: number | undefined,
  offset: number,
): FoundEntry[] {
  const inode = openDir(db, dir, "find");
  const glob = pattern === "" ? undefined : compileGlob(pattern);
  const out: FoundEntry[] = [];
  let skipped = 0;
  if (limit === 0) return out;
  for (const entry of walkTree(db, inode, dir)) {
    if (glob && !glob.test(entry.relative)) continue;
    if (skipped < offset) {
      skipped += 1;
      continue;
    }
    out.push({ path: entry.path, type: entry.node.type as NodeType });
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}

/**
 * Files at or under `prefix`, matched by whole segments, sorted by path.
 * The walk follows no link, not even in the prefix; anything missing is `[]`.
 */
export function ls(db: Database, prefix: string): string[] {
  let inode = ROOT_INODE;
  const segments = segmentsOf(prefix);
  for (const [i, name] of segments.entries()) {
    const child = lookup(db, inode, name);
    if (child === undefined) return [];
    const type = getNode(db, child)?.type;
    if (type === "file" && i === segments.length - 1) return [prefix];
    if (type !== "dir") return [];
    inode = child;
  }
  const files: string[] = [];
  for (const entry of walkTree(db, inode, prefix)) if (entry.node.type === "file") files.push(entry.path);
  return files.sort(compareBytes);
}

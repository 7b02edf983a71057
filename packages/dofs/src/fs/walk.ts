import type { Database } from "../database.js";
import { type ChildRow, listChildrenAfter } from "../nodes.js";
import { joinPath } from "../path.js";

/** Rows fetched per directory query, so a huge directory is never one giant result. */
const PAGE = 128;

export interface WalkEntry {
  path: string;
  /** Relative to the walk's start, without a leading `/`. */
  relative: string;
  node: ChildRow;
}

/**
 * Pre-order depth-first walk below a directory, children in byte order of
 * their names. Symlinks are yielded but never entered. Lazy, so a consumer
 * that stops early (a `limit`) stops the queries too. Callers consume it
 * synchronously, so the tree cannot change under a walk.
 */
export function* walkTree(db: Database, dirInode: number, dirPath: string, relative = ""): Generator<WalkEntry> {
  let after: string | null = null;
  for (;;) {
    const page = listChildrenAfter(db, dirInode, after, PAGE);
    for (const node of page) {
      const path = joinPath(dirPath, node.name);
      const rel = relative === "" ? node.name : `${relative}/${node.name}`;
      yield { path, relative: rel, node };
      if (node.type === "dir") yield* walkTree(db, Number(node.inode), path, rel);
    }
    if (page.length < PAGE) return;
    after = (page[page.length - 1] as ChildRow).name;
  }
}

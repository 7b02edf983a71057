import { readBlob } from "../blobs.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import type { NodeRow } from "../nodes.js";
import { resolvePath } from "../resolve.js";
import type { GrepContextLine, GrepMatch } from "../types.js";
import { compileGlob } from "./glob.js";
import { planRead } from "./read-file.js";
import { walkTree } from "./walk.js";

export interface GrepQuery {
  /** Tests one line. */
  matches: (line: string) => boolean;
  context: number;
  include: string | undefined;
  limit: number | undefined;
  offset: number;
}

/** Bytes inspected for a NUL to decide a file is binary (and skip it), as grep -I does. */
const BINARY_SNIFF = 8192;

/**
 * Searches the file at `path`, or every file below the directory at `path`
 * in walk order. Lines are split on `\n` and numbered from 1; a final `\n`
 * ends the last line rather than starting an empty one. Files are decoded
 * chunk by chunk, so a match may straddle a chunk boundary and memory stays
 * at one chunk plus the context window.
 */
export function grep(db: Database, path: string, query: GrepQuery): GrepMatch[] {
  const target = resolvePath(db, path, { followFinal: true }, "grep");
  if (target.kind !== "found") throw fsError("ENOENT", "grep", path);
  const out: GrepMatch[] = [];
  const budget = { skip: query.offset, left: query.limit ?? Number.POSITIVE_INFINITY };
  if (budget.left <= 0) return out;
  if (target.node.type === "file") {
    grepFile(db, target.node, path, query, budget, out);
    return out;
  }
  // An empty include filters nothing, as an empty find pattern does.
  const include = query.include ? compileGlob(query.include) : undefined;
  for (const entry of walkTree(db, Number(target.node.inode), path)) {
    if (entry.node.type !== "file") continue;
    if (include && !include.test(entry.relative)) continue;
    if (!grepFile(db, entry.node, entry.path, query, budget, out)) break;
  }
  return out;
}

interface Budget {
  skip: number;
  left: number;
}

/** A line in the context window; `done` once its own match has been emitted. */
type Line = GrepContextLine & { done?: boolean };

/** Returns false once the limit is reached. */
function grepFile(
  db: Database,
  node: NodeRow,
  path: string,
  query: GrepQuery,
  budget: Budget,
  out: GrepMatch[],
): boolean {
  const pieces = planRead(db, node, 0, undefined);
  const first = pieces[0];
  if (first && readBlob(db, first.hash, first.size, "read", path).subarray(0, BINARY_SNIFF).includes(0)) return true;

  const { context } = query;
  // Lines kept for context: up to `context` before the oldest pending match.
  const window: Line[] = [];
  let lineNo = 0;
  const emit = (match: Line): boolean => {
    if (budget.skip > 0) {
      budget.skip -= 1;
      return true;
    }
    const result: GrepMatch = { path, line: match.line, text: match.text };
    if (context > 0) {
      result.context = window
        .filter((l) => l.line >= match.line - context && l.line <= match.line + context)
        .map(({ line, text, isMatch }) => ({ line, text, isMatch }));
    }
    out.push(result);
    budget.left -= 1;
    return budget.left > 0;
  };
  // A match is emitted once `context` lines after it have been seen (or the file ended).
  const settle = (final: boolean): boolean => {
    while (window.length > 0) {
      const pending = window.find((l) => l.isMatch && !l.done);
      if (!pending) break;
      if (!final && lineNo < pending.line + context) break;
      pending.done = true;
      if (!emit(pending)) return false;
    }
    // Drop lines no pending match can still need.
    const oldestPending = window.find((l) => l.isMatch && !l.done);
    const keepFrom = (oldestPending ? oldestPending.line : lineNo + 1) - context;
    while (window.length > 0 && (window[0] as Line).line < keepFrom) window.shift();
    return true;
  };
  const push = (text: string): boolean => {
    lineNo += 1;
    window.push({ line: lineNo, text, isMatch: query.matches(text) });
    return settle(false);
  };

  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
  let carry = "";
  for (const piece of pieces) {
    const bytes = readBlob(db, piece.hash, piece.size, "read", path);
    const text = carry + decoder.decode(bytes, { stream: true });
    const lines = text.split("\n");
    carry = lines.pop() as string;
    for (const line of lines) if (!push(line)) return false;
  }
  carry += decoder.decode();
  if (carry !== "" && !push(carry)) return false;
  return settle(true);
}

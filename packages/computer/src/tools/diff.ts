/**
 * The diff `edit` returns. The edit ranges are known, so no general diff
 * algorithm is needed: each range widens to whole lines, ranges sharing a
 * line merge into one block, and identical leading/trailing lines of a block
 * are trimmed. That is linear in the file size, which matters for a 2 MiB
 * file with two edits far apart.
 */

export interface Range {
  start: number;
  end: number;
  newText: string;
}

interface Block {
  /** 0-based first line in the old / new text. */
  oldLine: number;
  newLine: number;
  removed: string[];
  added: string[];
}

export interface EditDiff {
  /** Unified diff with `Index`/`---`/`+++` headers and 4 lines of context. */
  patch: string;
  /** The same hunks for reading: `-12 old`, `+12 new`, ` 12 same`, `...` between hunks. */
  diff: string;
  /** 1-based line of the new text where the first change is. */
  firstChangedLine: number;
}

/** Unchanged lines shown beside a change. */
const CONTEXT = 4;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 0-based line containing `pos`. */
function lineOf(starts: readonly number[], pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function blocksOf(oldText: string, newText: string, ranges: readonly Range[]): Block[] {
  const starts = lineStarts(oldText);
  const lineEnd = (line: number): number => {
    const next = starts[line + 1];
    return next === undefined ? oldText.length : next - 1;
  };
  const blocks: Block[] = [];
  let delta = 0; // new position − old position before the current block
  let lineDelta = 0;
  let i = 0;
  while (i < ranges.length) {
    const first = ranges[i] as Range;
    const fromLine = lineOf(starts, first.start);
    let toLine = lineOf(starts, first.end);
    let blockDelta = 0;
    // Take every range that starts on a line this block already covers.
    while (i < ranges.length && lineOf(starts, (ranges[i] as Range).start) <= toLine) {
      const range = ranges[i] as Range;
      toLine = Math.max(toLine, lineOf(starts, range.end));
      blockDelta += range.newText.length - (range.end - range.start);
      i++;
    }
    const oldFrom = starts[fromLine] as number;
    const oldTo = lineEnd(toLine);
    const removed = oldText.slice(oldFrom, oldTo).split("\n");
    const added = newText.slice(oldFrom + delta, oldTo + delta + blockDelta).split("\n");
    let head = 0;
    while (head < removed.length - 1 && head < added.length - 1 && removed[head] === added[head]) head++;
    let tail = 0;
    while (
      tail < removed.length - head &&
      tail < added.length - head &&
      removed[removed.length - 1 - tail] === added[added.length - 1 - tail]
    ) {
      tail++;
    }
    const block: Block = {
      oldLine: fromLine + head,
      newLine: fromLine + lineDelta + head,
      removed: removed.slice(head, removed.length - tail),
      added: added.slice(head, added.length - tail),
    };
    if (block.removed.length > 0 || block.added.length > 0) blocks.push(block);
    delta += blockDelta;
    lineDelta += added.length - removed.length;
  }
  return blocks;
}

/** The lines of a text as a line diff counts them: a final newline ends the last line, it does not start one. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

const NO_NEWLINE = "\\ No newline at end of file";

/**
 * The diff and the unified patch of an edit. Both follow the layout of the
 * line diffs agents are used to (and the original's): 4 lines of context,
 * changes closer than 8 lines in one hunk, removed lines before added ones,
 * `\ No newline at end of file` after a last line without one.
 */
export function editDiff(path: string, oldText: string, newText: string, ranges: readonly Range[]): EditDiff {
  const oldLines = linesOf(oldText);
  const newLines = linesOf(newText);
  // The empty piece after a final newline is not a line: a block that reaches it stops before it.
  const blocks = blocksOf(oldText, newText, ranges)
    .map((block) => ({
      ...block,
      removed: block.removed.slice(0, Math.max(0, oldLines.length - block.oldLine)),
      added: block.added.slice(0, Math.max(0, newLines.length - block.newLine)),
    }))
    .filter((block) => block.removed.length > 0 || block.added.length > 0);
  return {
    patch: unifiedPatch(path, blocks, oldLines, newLines, oldText.endsWith("\n"), newText.endsWith("\n")),
    diff: readableDiff(blocks, oldLines, Math.max(oldText.split("\n").length, newText.split("\n").length)),
    firstChangedLine: blocks.length > 0 ? (blocks[0] as Block).newLine + 1 : 1,
  };
}

/** `-N old` / `+N new` / ` N same` lines, with at most 4 unchanged lines beside a change and ` ...` for the rest. */
function readableDiff(blocks: readonly Block[], oldLines: readonly string[], lineCount: number): string {
  const width = String(lineCount).length;
  const num = (n: number): string => String(n).padStart(width, " ");
  const skip = ` ${"".padStart(width, " ")} ...`;
  const out: string[] = [];
  const same = (from: number, to: number): void => {
    for (let line = from; line < to; line++) out.push(` ${num(line + 1)} ${oldLines[line]}`);
  };
  let oldAt = 0;
  for (const [index, block] of blocks.entries()) {
    const gap = block.oldLine - oldAt;
    if (index === 0) {
      // Before the first change: its last 4 unchanged lines.
      if (gap > CONTEXT) out.push(skip);
      same(Math.max(oldAt, block.oldLine - CONTEXT), block.oldLine);
    } else if (gap <= 2 * CONTEXT) {
      same(oldAt, block.oldLine);
    } else {
      same(oldAt, oldAt + CONTEXT);
      out.push(skip);
      same(block.oldLine - CONTEXT, block.oldLine);
    }
    block.removed.forEach((line, i) => {
      out.push(`-${num(block.oldLine + i + 1)} ${line}`);
    });
    block.added.forEach((line, i) => {
      out.push(`+${num(block.newLine + i + 1)} ${line}`);
    });
    oldAt = block.oldLine + block.removed.length;
  }
  if (blocks.length > 0) {
    // After the last change: its first 4 unchanged lines.
    same(oldAt, Math.min(oldLines.length, oldAt + CONTEXT));
    if (oldLines.length - oldAt > CONTEXT) out.push(skip);
  }
  return out.join("\n");
}

function unifiedPatch(
  path: string,
  blocks: readonly Block[],
  oldLines: readonly string[],
  newLines: readonly string[],
  oldEndsWithNewline: boolean,
  newEndsWithNewline: boolean,
): string {
  // Group blocks whose contexts touch into hunks.
  const hunks: Block[][] = [];
  for (const block of blocks) {
    const last = hunks.at(-1)?.at(-1);
    if (last && block.oldLine - (last.oldLine + last.removed.length) <= 2 * CONTEXT) hunks.at(-1)?.push(block);
    else hunks.push([block]);
  }
  const out = [`Index: ${path}`, "=".repeat(67), `--- ${path}`, `+++ ${path}`];
  for (const hunk of hunks) {
    const head = hunk[0] as Block;
    const tail = hunk.at(-1) as Block;
    const before = Math.min(CONTEXT, head.oldLine);
    const oldStart = head.oldLine - before;
    const newStart = head.newLine - before;
    const oldEnd = Math.min(oldLines.length, tail.oldLine + tail.removed.length + CONTEXT);
    const body: string[] = [];
    // Marks the end of a side that has no final newline, right after its last line.
    const mark = (oldLine: number | undefined, newLine: number | undefined): void => {
      const oldLast = oldLine !== undefined && oldLine === oldLines.length - 1 && !oldEndsWithNewline;
      const newLast = newLine !== undefined && newLine === newLines.length - 1 && !newEndsWithNewline;
      if (oldLast || newLast) body.push(NO_NEWLINE);
    };
    let oldAt = oldStart;
    let newAt = newStart;
    const same = (to: number): void => {
      for (; oldAt < to; oldAt++, newAt++) {
        body.push(` ${oldLines[oldAt]}`);
        mark(oldAt, newAt);
      }
    };
    for (const block of hunk) {
      same(block.oldLine);
      for (const line of block.removed) {
        body.push(`-${line}`);
        mark(oldAt++, undefined);
      }
      for (const line of block.added) {
        body.push(`+${line}`);
        mark(undefined, newAt++);
      }
    }
    same(oldEnd);
    const oldCount = oldAt - oldStart;
    const newCount = newAt - newStart;
    // Unified diff numbers an empty side by the line before it.
    out.push(
      `@@ -${oldCount === 0 ? oldStart : oldStart + 1},${oldCount} +${newCount === 0 ? newStart : newStart + 1},${newCount} @@`,
      ...body,
    );
  }
  return `${out.join("\n")}\n`;
}

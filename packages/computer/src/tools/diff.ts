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
  /** Unified diff with `---`/`+++` headers and 3 lines of context. */
  patch: string;
  /** The same hunks for reading: `-12 old`, `+12 new`, ` 12 same`, `...` between hunks. */
  diff: string;
  /** 1-based line of the new text where the first change is. */
  firstChangedLine: number;
}

const CONTEXT = 3;

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

export function editDiff(path: string, oldText: string, newText: string, ranges: readonly Range[]): EditDiff {
  const blocks = blocksOf(oldText, newText, ranges);
  const oldLines = oldText.split("\n");
  // Group blocks whose contexts touch into hunks.
  const hunks: Block[][] = [];
  for (const block of blocks) {
    const last = hunks.at(-1)?.at(-1);
    if (last && block.oldLine - (last.oldLine + last.removed.length) <= 2 * CONTEXT) hunks.at(-1)?.push(block);
    else hunks.push([block]);
  }
  const patch: string[] = [`--- a${path}`, `+++ b${path}`];
  const readable: string[] = [];
  const width = String(Math.max(oldLines.length, newText.split("\n").length)).length;
  const num = (n: number): string => String(n).padStart(width, " ");
  for (const hunk of hunks) {
    const head = hunk[0] as Block;
    const tail = hunk.at(-1) as Block;
    const before = Math.min(CONTEXT, head.oldLine);
    const afterOld = tail.oldLine + tail.removed.length;
    const after = Math.min(CONTEXT, oldLines.length - afterOld);
    const body: string[] = [];
    const view: string[] = [];
    let oldAt = head.oldLine - before;
    let newAt = head.newLine - before;
    const same = (count: number): void => {
      for (let k = 0; k < count; k++) {
        body.push(` ${oldLines[oldAt]}`);
        view.push(` ${num(newAt + 1)} ${oldLines[oldAt]}`);
        oldAt++;
        newAt++;
      }
    };
    same(before);
    for (const block of hunk) {
      same(block.oldLine - oldAt);
      for (const line of block.removed) {
        body.push(`-${line}`);
        view.push(`-${num(oldAt + 1)} ${line}`);
        oldAt++;
      }
      for (const line of block.added) {
        body.push(`+${line}`);
        view.push(`+${num(newAt + 1)} ${line}`);
        newAt++;
      }
    }
    same(after);
    const oldStart = head.oldLine - before;
    const newStart = head.newLine - before;
    const oldCount = oldAt - oldStart;
    const newCount = newAt - newStart;
    // Unified diff numbers an empty side by the line before it.
    patch.push(
      `@@ -${oldCount === 0 ? oldStart : oldStart + 1},${oldCount} +${newCount === 0 ? newStart : newStart + 1},${newCount} @@`,
      ...body,
    );
    if (readable.length > 0) readable.push(" ...");
    readable.push(...view);
  }
  const firstChangedLine = blocks.length > 0 ? (blocks[0] as Block).newLine + 1 : 1;
  return { patch: `${patch.join("\n")}\n`, diff: readable.join("\n"), firstChangedLine };
}

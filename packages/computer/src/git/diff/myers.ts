/**
 * Line diff (Myers' O(ND) algorithm, forward pass with a trace for the
 * backtrack) and unified hunks with git's defaults: 3 lines of context,
 * hunks merged when their context touches.
 */

export type Edit = { op: "=" | "-" | "+"; line: string };

export function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        v = next;
        trace.push(v);
        break outer;
      }
    }
    v = next;
  }
  // Backtrack from (n, m) through the saved frontiers.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0 && (x > 0 || y > 0); d--) {
    const frontier = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (frontier[offset + k - 1] ?? 0) < (frontier[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = frontier[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ op: "=", line: a[x] as string });
    }
    if (d > 0) {
      if (down) edits.push({ op: "+", line: b[--y] as string });
      else edits.push({ op: "-", line: a[--x] as string });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    edits.push({ op: "=", line: a[x] as string });
  }
  return edits.reverse();
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export function hunks(edits: readonly Edit[], context = 3): Hunk[] {
  const out: Hunk[] = [];
  let i = 0;
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 0;
  let nn = 0;
  for (const edit of edits) {
    oldAt.push(o);
    newAt.push(nn);
    if (edit.op !== "+") o++;
    if (edit.op !== "-") nn++;
  }
  while (i < edits.length) {
    while (i < edits.length && edits[i]?.op === "=") i++;
    if (i >= edits.length) break;
    let start = Math.max(0, i - context);
    // Extend to the last change whose context touches the next one.
    let end = i;
    let j = i;
    while (j < edits.length) {
      if (edits[j]?.op !== "=") {
        end = j;
        j++;
        continue;
      }
      let run = j;
      while (run < edits.length && edits[run]?.op === "=") run++;
      if (run >= edits.length || run - j > 2 * context) break;
      j = run;
    }
    const stop = Math.min(edits.length, end + 1 + context);
    const slice = edits.slice(start, stop);
    const lines = slice.map((edit) => `${edit.op === "=" ? " " : edit.op}${edit.line}`);
    const oldLines = slice.filter((edit) => edit.op !== "+").length;
    const newLines = slice.filter((edit) => edit.op !== "-").length;
    const oldStart = (oldAt[start] ?? 0) + (oldLines > 0 ? 1 : 0);
    const newStart = (newAt[start] ?? 0) + (newLines > 0 ? 1 : 0);
    out.push({ oldStart, oldLines, newStart, newLines, lines });
    start = stop;
    i = stop;
  }
  return out;
}

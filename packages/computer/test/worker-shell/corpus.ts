/**
 * The files of the pipeline comparison: 10,000 lines over 100 files in
 * nested folders, from a fixed seed, so the GNU tools (global-setup.node.ts)
 * and the worker-shell (pipeline.worker.test.ts) see byte-identical trees.
 * Runtime-neutral.
 */
export const CORPUS_ROOT = "/workspace/corpus";
export const CORPUS_LINES = 10_000;
const FILES = 100;

/**
 * The pipelines compared, run from the corpus root. Two differences from GNU
 * are kept out on purpose and named in docs/worker-shell.md: just-bash's
 * `grep -r .` prints `pkg0/…` where GNU prints `./pkg0/…`, and its `sort`
 * collates like a UTF-8 locale (`a:1` < `a:10` < `a:100`), not like
 * `LC_ALL=C`, and `uniq -c` pads counts to 4 columns where GNU pads to 7.
 * So the pipelines name the folders, file names are zero-padded, the line
 * sort uses explicit keys and the count padding is stripped. (Several `-e`
 * patterns also undercount in just-bash 3.4.2; `-E` with `|` is used.)
 */
export const PIPELINES = {
  "grep-sort": "grep -rn TODO pkg* | sort -t: -k1,1 -k2,2n",
  "grep-sort-uniq": "grep -rn TODO pkg* | cut -d: -f3- | sort | uniq -c | sed 's/^ *//'",
  "grep-count-by-file": "grep -rnE 'TODO|FIXME' pkg* | cut -d: -f1 | sort | uniq -c | sed 's/^ *//'",
} as const;

export type PipelineName = keyof typeof PIPELINES;

const WORDS = ["alpha", "beta", "gamma", "delta", "parser", "cache", "index", "flush", "retry", "queue"];

/** A 32-bit LCG: tiny, fixed, the same in every runtime. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

/** Paths relative to the corpus root, and their text. */
export function corpusFiles(): Array<{ path: string; text: string }> {
  const next = lcg(42);
  const files: Array<{ path: string; text: string }> = [];
  const perFile = CORPUS_LINES / FILES;
  for (let f = 0; f < FILES; f++) {
    const lines: string[] = [];
    for (let l = 0; l < perFile; l++) {
      const roll = next() % 10;
      const word = WORDS[next() % WORDS.length];
      if (roll === 0) lines.push(`  // TODO: ${word} handling`);
      else if (roll === 1) lines.push(`  // FIXME ${word}`);
      else lines.push(`  const ${word}${l} = ${next() % 1000};`);
    }
    files.push({
      path: `pkg${f % 5}/mod${Math.floor(f / 5) % 4}/file${String(f).padStart(3, "0")}.ts`,
      text: `${lines.join("\n")}\n`,
    });
  }
  return files;
}

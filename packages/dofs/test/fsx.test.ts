/**
 * fsx (test/fsx.ts) against dofs itself, in both runtimes: range writes,
 * truncates down and up, copy_file_range and commit points built on the
 * inode verbs (test/fsx-dofs.ts), compared with the in-memory model after
 * every op, plus a pull of the file after each pull op. A mismatch prints
 * the seed and the shrunk op list. Longer runs:
 * `FSX_SEEDS=8 FSX_OPS=100000 npx vitest run --project dofs:node packages/dofs/test/fsx.test.ts`
 * (FSX_SEED=k runs seed k alone; the workerd project forwards FSX_* too).
 */
import { expect, test } from "vitest";
import { runtime, withFs } from "#harness";
import { fsxSettings, runFsx } from "./fsx.js";
import { DofsFsxTarget } from "./fsx-dofs.js";

// Seeds 1 and 2 in CI, as on the FUSE mount; FSX_SEEDS/FSX_OPS run more.
const { seeds, ops } = fsxSettings({ seeds: 2, ops: 20_000 });

test.each(seeds)(
  `dofs:${runtime}, seed %i: ${ops} random ops on one file agree with the model`,
  async (seed) => {
    await withFs(async ({ db, fs }) => {
      let run = 0;
      const stats = await runFsx({
        seed,
        ops,
        // fallocate(2) is the mount's (computerd's fsx runs it); dofs has no such verb.
        skip: ["fallocate"],
        open: async () => [await DofsFsxTarget.create(`dofs:${runtime}`, db, fs, `/fsx-${seed}-${run++}`)],
      });
      console.log(`fsx dofs:${runtime} seed ${seed}: ${JSON.stringify(stats)}`);
      expect(stats.ops).toBe(ops);
    });
  },
  600_000,
);

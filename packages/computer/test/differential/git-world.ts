/**
 * The world a differential git scenario runs in (git.worker.test.ts): the
 * client and files both sides offer, a fixed-time author, and the seeded
 * random scenario that runs the same edits on both.
 */
import type { GitClient } from "computer-reference/git";
import type { Trace } from "./trace.js";

/** What a scenario gets: the git client and the workspace's files, typed as the original's. */
export interface GitWorld {
  git: GitClient;
  fs: {
    writeFile(path: string, content: string): Promise<void>;
    mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
    rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
    readFile(path: string, encoding: "utf8"): Promise<string>;
    stat(path: string): Promise<unknown>;
  };
}

/** Whether `path` exists, by `stat` (the one both packages' fs has). */
export async function present(fs: GitWorld["fs"], path: string): Promise<boolean> {
  return fs.stat(path).then(
    () => true,
    () => false,
  );
}

export type Scenario = (world: GitWorld, step: Trace["step"]) => Promise<void>;

export const ADA = { name: "Ada", email: "ada@example.com" };

/** An author at a fixed time, so both sides hash the same commit. */
export function at(timestamp: number): { name: string; email: string } {
  return { ...ADA, timestamp, timezoneOffset: 0 } as { name: string; email: string };
}

/** A small deterministic PRNG (mulberry32), so a failing seed replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS = ["a.txt", "b.txt", "d/c.txt", "d/e/f.txt"];

/**
 * Random edits, staging, commits and resets, the same sequence on both
 * sides (the choices read only the work tree, which both keep alike).
 * After each step the index (`lsFiles`) is compared, and after every
 * commit its oid (which hashes the whole staged tree) and HEAD's files. The ops stay where the two
 * agree by design: `add` names files that exist (ours also stages a
 * deletion by name, the original refuses), commits allow empty ones.
 */
export function randomScenario(seed: number): Scenario {
  return async ({ git, fs }, step) => {
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const dir = "/repo";
    await step("init", () => git.init({ dir }));
    let time = 1_700_000_000;
    for (let i = 0; i < 30; i++) {
      const path = pick(PATHS);
      const there = await present(fs, `/repo/${path}`);
      const op = pick(["write", "write", "delete", "add", "add", "add all", "commit", "commit", "reset", "rm"]);
      const label = `${i} ${op} ${path}`;
      if (op === "write") {
        // Each version has its own length: a same-size rewrite within one mtime tick is
        // "racily clean" to isomorphic-git's stat cache, on both sides, timing-dependent.
        const text = `${path} ${"x".repeat(Math.floor(next() * 3))}\n`;
        await step(label, async () => {
          await fs.mkdir(`/repo/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
          await fs.writeFile(`/repo/${path}`, text);
        });
      } else if (op === "delete") {
        await step(label, () => fs.rm(`/repo/${path}`, { force: true }));
      } else if (op === "add") {
        if (there) await step(label, () => git.add({ dir, paths: [path] }));
      } else if (op === "add all") {
        await step(label, () => git.add({ dir, paths: [], all: true }));
      } else if (op === "commit") {
        time += 60;
        const options = { dir, message: `c${i}\n`, author: at(time), allowEmpty: true };
        await step(label, () => git.commit(options));
        await step(`${i} files of HEAD`, async () => {
          const tree = await git.lsTree({ dir, ref: "HEAD" });
          const out: Record<string, string> = {};
          for (const entry of tree) {
            if (entry.type === "blob")
              out[entry.path] = new TextDecoder().decode((await git.catFile({ dir, oid: entry.oid })).bytes);
            else out[entry.path] = entry.oid;
          }
          return out;
        });
      } else if (op === "reset") {
        await step(label, () => git.reset({ dir, paths: [path] }));
      } else {
        const tracked = await git.lsFiles({ dir });
        if (tracked.includes(path)) await step(label, () => git.rm({ dir, paths: [path] }));
      }
      await step(`${i} lsFiles`, () => git.lsFiles({ dir }));
    }
    await step("log", () => git.log({ dir }));
  };
}

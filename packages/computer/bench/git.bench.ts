/**
 * Workspace git next to real git, in one run (not a test): status/add/commit
 * over a 1,000-file tree, and a shallow clone of a ~1 MB repository from a
 * local smart-HTTP server (`git http-backend`). Workspace git runs in Node
 * over better-sqlite3 (in memory) through the same `GitClient.cli` that
 * `workspace.git` is; real git runs on local disk. Wall times are medians of
 * a few runs. Reproduce: `node packages/computer/bench/git.bench.mjs`.
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { createGitClient } from "../src/git/index.js";
import { startGitHttpServer } from "../test/git/http-server.node.js";
import { GIT_ENV, git as realGit } from "../test/git/real-git.node.js";

const FILES = Number(process.env.GIT_BENCH_FILES ?? 1000);
const RUNS = Number(process.env.GIT_BENCH_RUNS ?? 3);
const env = { GIT_AUTHOR_NAME: "Bench", GIT_AUTHOR_EMAIL: "bench@example.com" };

async function time(run: () => unknown): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function spawnGit(cwd: string, ...args: string[]): void {
  const result = spawnSync("git", args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, ...GIT_ENV } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

async function treeRound(): Promise<Record<string, [number, number]>> {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  const git = createGitClient().open({ fs });
  const disk = mkdtempSync(join(tmpdir(), "git-bench-tree-"));
  await fs.mkdir("/w");
  spawnGit(disk, "init", "-q", "-b", "main");
  await git.cli({ argv: ["init"], cwd: "/w" });
  for (let i = 0; i < FILES; i++) {
    const dir = `d${i % 20}`;
    const text = `file ${i}\n${"x".repeat(200)}\n`;
    await fs.mkdir(`/w/${dir}`, { recursive: true });
    await fs.writeFile(`/w/${dir}/f${i}.txt`, text);
    mkdirSync(join(disk, dir), { recursive: true });
    writeFileSync(join(disk, dir, `f${i}.txt`), text);
  }
  const ours = (argv: string[]) =>
    time(async () => {
      const result = await git.cli({ argv, cwd: "/w", env });
      if (result.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${result.stderr}`);
    }).then((ms) => {
      process.stderr.write(`  git ${argv.join(" ")}: ${ms.toFixed(0)} ms\n`);
      return ms;
    });
  const theirs = (...args: string[]) => time(() => spawnGit(disk, ...args));
  const out: Record<string, [number, number]> = {};
  out[`status (${FILES} untracked)`] = [
    await ours(["status", "-uall"]),
    await theirs("status", "--porcelain=v2", "-uall"),
  ];
  out[`add . (${FILES} files)`] = [await ours(["add", "."]), await theirs("add", ".")];
  out.commit = [await ours(["commit", "-m", "tree"]), await theirs("commit", "-q", "-m", "tree")];
  out["status (clean)"] = [await ours(["status"]), await theirs("status", "--porcelain=v2")];
  for (let i = 0; i < 10; i++) {
    await fs.writeFile(`/w/d${i}/f${i}.txt`, "changed\n");
    writeFileSync(join(disk, `d${i}`, `f${i}.txt`), "changed\n");
  }
  out["status (10 modified)"] = [await ours(["status"]), await theirs("status", "--porcelain=v2")];
  rmSync(disk, { recursive: true, force: true });
  return out;
}

async function cloneRound(url: string): Promise<[number, number]> {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  const git = createGitClient().open({ fs });
  const disk = mkdtempSync(join(tmpdir(), "git-bench-clone-"));
  const ours = await time(async () => {
    const result = await git.cli({ argv: ["clone", url, "/c"] });
    if (result.exitCode !== 0) throw new Error(result.stderr);
  });
  // Asynchronously: the server answering real git runs in this process, so spawnSync would deadlock.
  const theirs = await time(() =>
    promisify(execFile)("git", ["clone", "-q", "--depth", "1", url, "c"], {
      cwd: disk,
      env: { PATH: process.env.PATH ?? "", HOME: disk, ...GIT_ENV },
    }),
  );
  rmSync(disk, { recursive: true, force: true });
  return [ours, theirs];
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "git-bench-server-"));
  const work = join(root, "work");
  realGit(root, "init", "-q", "-b", "main", work);
  // ~1 MB of incompressible content in 64 files, over 3 commits (the clone takes only the last).
  for (let commit = 0; commit < 3; commit++) {
    for (let i = 0; i < 64; i++) writeFileSync(join(work, `blob${i}.bin`), randomBytes(16 * 1024));
    realGit(work, "add", ".");
    realGit(work, "commit", "-q", "-m", `c${commit}`);
  }
  realGit(root, "clone", "-q", "--bare", work, join(root, "big.git"));
  const server = await startGitHttpServer({ root });
  const rows = new Map<string, [number[], number[]]>();
  const record = (name: string, [ours, theirs]: [number, number]) => {
    const row = rows.get(name) ?? [[], []];
    row[0].push(ours);
    row[1].push(theirs);
    rows.set(name, row);
  };
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const [name, pair] of Object.entries(await treeRound())) record(name, pair);
      record("shallow clone (~1 MB, HTTP)", await cloneRound(`${server.url}/big.git`));
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  console.log(
    `workspace git (isomorphic-git over dofs/better-sqlite3) vs real git ${spawnSync("git", ["--version"], { encoding: "utf8" }).stdout.trim()} on disk; median of ${RUNS}\n`,
  );
  console.log("| operation | workspace git ms | real git ms | ratio |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, [ours, theirs]] of rows) {
    const a = median(ours);
    const b = median(theirs);
    console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(1)}× |`);
  }
  console.log("\nreproduce: node packages/computer/bench/git.bench.mjs");
}

await main();

#!/usr/bin/env node
/**
 * durability: what a store that survives the daemon (COMPUTERD_STATE_DIR:
 * every close, fsync and fsyncdir commits; docs/computerd.md, "A store that
 * outlives the daemon") costs against the anonymous store, which commits
 * when it likes and dies with the daemon. Three targets, interleaved (each
 * repetition runs every target before the next), medians, as ratios to a
 * tmpfs measured in the same run:
 * - 2,000 small files (1 to 4 KiB) written and closed, one process;
 * - tar -x of this repository's tracked tree (`git archive HEAD`);
 * - git clone of this repository (local).
 * Needs root and /dev/fuse; builds nothing (run the computerd build first).
 *
 *   node packages/computerd/bench/durability.mjs [--reps 5]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startComputerd } from "./daemon.mjs";
import { sh } from "./shell.mjs";

const repsAt = process.argv.indexOf("--reps");
const reps = repsAt === -1 ? 5 : Number(process.argv[repsAt + 1]);
const repository = fileURLToPath(new URL("../../../", import.meta.url));

const work = mkdtempSync("/var/tmp/computerd-durability-");
const tarball = join(work, "tree.tar");
execFileSync("git", ["archive", "-o", tarball, "HEAD"], { cwd: repository });
const files = Number(execFileSync("bash", ["-c", `tar -tf ${tarball} | grep -vc '/$'`], { encoding: "utf8" }));

const SMALL = `import os, random
r = random.Random(1)
for i in range(2000):
    with open(f"f{i:04d}", "wb") as f:
        f.write(r.randbytes(r.randint(1024, 4096)))`;

const workloads = [
  ["2,000 small files written and closed", (d) => execFileSync("python3", ["-c", SMALL], { cwd: d })],
  [`tar -x of this repository (${files} files)`, (d) => sh(d, `tar -xf ${tarball}`)],
  ["git clone of this repository (local)", (d) => sh(d, `git clone -q ${repository} clone`)],
];

const targets = {
  anonymous: join(work, "anonymous-mnt"),
  state: join(work, "state-mnt"),
  tmpfs: mkdtempSync("/dev/shm/computerd-durability-"),
};
const daemons = {
  anonymous: await startComputerd(targets.anonymous, {}),
  state: await startComputerd(targets.state, { COMPUTERD_STATE_DIR: join(work, "state") }),
};
const times = new Map(workloads.map(([name]) => [name, Object.fromEntries(Object.keys(targets).map((t) => [t, []]))]));
let counter = 0;
try {
  for (let rep = 0; rep < reps; rep++) {
    for (const [name, body] of workloads) {
      for (const [target, root] of Object.entries(targets)) {
        const dir = join(root, `run-${counter++}`);
        mkdirSync(dir);
        const started = performance.now();
        body(dir);
        times.get(name)[target].push(performance.now() - started);
        sh(root, `rm -rf ${dir}`);
      }
    }
  }
} finally {
  for (const child of Object.values(daemons)) {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));
  }
  rmSync(targets.tmpfs, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `\ndurability: ${reps} repetition(s), interleaved, medians; anonymous = the store dies with the daemon (default), state = COMPUTERD_STATE_DIR (close, fsync and fsyncdir commit); tmpfs = /dev/shm\n`,
);
console.log("| workload | anonymous s | state s | tmpfs s | anonymous/tmpfs | state/tmpfs | state/anonymous |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const [name] of workloads) {
  const t = times.get(name);
  const [a, s, m] = [median(t.anonymous), median(t.state), median(t.tmpfs)];
  const cells = [a, s, m].map((ms) => (ms / 1000).toFixed(2));
  console.log(
    `| ${name} | ${cells.join(" | ")} | ${(a / m).toFixed(1)}x | ${(s / m).toFixed(1)}x | ${(s / a).toFixed(2)}x |`,
  );
}
console.log(`\nreproduce: node packages/computerd/bench/durability.mjs --reps ${reps}`);

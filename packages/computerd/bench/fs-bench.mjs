#!/usr/bin/env node
/**
 * fs-bench: the scenarios of the performance reference on computerd's FUSE
 * mount, a tmpfs and the local disk, interleaved in one run (each repetition
 * runs every target before the next), 1 warm-up + N repetitions, each in a
 * fresh directory. Prints medians and the ratio table, plus the command that
 * reproduces it. Needs root and /dev/fuse; builds nothing (run `npm run build` first).
 *
 *   npx -y pnpm@12.4.2 --filter @cloudflare/computerd run bench [-- --reps 3] [-- --kernel]
 *
 * `--kernel` adds a second computerd with COMPUTERD_FUSE_DRIVER=kernel (our
 * own FUSE layer) as its own target, interleaved with the others.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { startComputerd } from "./daemon.mjs";

const repsAt = process.argv.indexOf("--reps");
const reps = repsAt === -1 ? 3 : Number(process.argv[repsAt + 1]);
const withKernel = process.argv.includes("--kernel");
const MiB = 1024 * 1024;
const block = Buffer.alloc(MiB);
for (let i = 0; i < block.length; i++) block[i] = (i * 31) % 251;
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.invalid",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};
const sh = (cwd, script) => execFileSync("bash", ["-c", script], { cwd, env: gitEnv, stdio: "ignore" });

function writeBig(path, mib = 64) {
  const fd = openSync(path, "w");
  for (let i = 0; i < mib; i++) writeSync(fd, block, 0, MiB, i * MiB);
  closeSync(fd);
}
function readAll(path) {
  const fd = openSync(path, "r");
  const buffer = Buffer.allocUnsafe(MiB);
  while (readSync(fd, buffer, 0, MiB, null) > 0);
  closeSync(fd);
}

/** Each scenario: optional untimed setup, then the timed body, both in `dir`. */
const scenarios = [
  [
    "create 1000 small files",
    null,
    (d) => {
      for (let i = 0; i < 1000; i++) writeFileSync(join(d, `f${i}`), "x\n");
    },
  ],
  [
    "stat 1000 files",
    (d) => {
      for (let i = 0; i < 1000; i++) writeFileSync(join(d, `f${i}`), "x\n");
    },
    (d) => {
      for (let i = 0; i < 1000; i++) statSync(join(d, `f${i}`));
    },
  ],
  [
    "rm 1000 files",
    (d) => {
      for (let i = 0; i < 1000; i++) writeFileSync(join(d, `f${i}`), "x\n");
    },
    (d) => {
      for (let i = 0; i < 1000; i++) unlinkSync(join(d, `f${i}`));
    },
  ],
  [
    "mkdir tree 10x10x10",
    null,
    (d) => {
      for (let a = 0; a < 10; a++)
        for (let b = 0; b < 10; b++)
          for (let c = 0; c < 10; c++) mkdirSync(join(d, `${a}`, `${b}`, `${c}`), { recursive: true });
    },
  ],
  [
    "find over that tree",
    (d) => {
      for (let a = 0; a < 10; a++)
        for (let b = 0; b < 10; b++)
          for (let c = 0; c < 10; c++) mkdirSync(join(d, `${a}`, `${b}`, `${c}`), { recursive: true });
    },
    (d) => sh(d, "find . > /dev/null"),
  ],
  // The reference's ext4 figures (2.7 ms a stat, 1.3 ms an unlink, 3 ms a mkdir) can only come from a
  // process per operation; these rows measure that way too, next to the in-process rows above.
  [
    "stat 1000 files (a process each)",
    (d) => {
      for (let i = 0; i < 1000; i++) writeFileSync(join(d, `f${i}`), "x\n");
    },
    (d) => sh(d, "for i in $(seq 0 999); do stat f$i > /dev/null; done"),
  ],
  [
    "rm 1000 files (a process each)",
    (d) => {
      for (let i = 0; i < 1000; i++) writeFileSync(join(d, `f${i}`), "x\n");
    },
    (d) => sh(d, "for i in $(seq 0 999); do rm f$i; done"),
  ],
  [
    "mkdir tree 10x10x10 (a process each)",
    null,
    (d) =>
      sh(
        d,
        "for a in $(seq 0 9); do for b in $(seq 0 9); do for c in $(seq 0 9); do mkdir -p $a/$b/$c; done; done; done",
      ),
  ],
  ["write 64 MiB (1 MiB writes)", null, (d) => writeBig(join(d, "big"))],
  // How shell tools write: 8 KiB at a time, one FUSE round trip each unless the writeback cache gathers them.
  ["write 64 MiB (8 KiB writes, head -c)", null, (d) => sh(d, "head -c 67108864 /dev/zero > small")],
  ["copy 64 MiB", (d) => writeBig(join(d, "big")), (d) => sh(d, "cp big big2")],
  ["read 64 MiB", (d) => writeBig(join(d, "big")), (d) => sh(d, "cat big > /dev/null")],
  [
    "pure read 64 MiB (in-process, warm)",
    (d) => {
      writeBig(join(d, "big"));
      readAll(join(d, "big"));
    },
    (d) => readAll(join(d, "big")),
  ],
  [
    "pure copy 64 MiB (copyFile)",
    (d) => writeBig(join(d, "big")),
    (d) => copyFileSync(join(d, "big"), join(d, "big2")),
  ],
  ["overwrite 64 MiB", (d) => writeBig(join(d, "big")), (d) => writeBig(join(d, "big"))],
  [
    "git init + commit 100 files",
    (d) => {
      mkdirSync(join(d, "r"));
      for (let i = 0; i < 100; i++) writeFileSync(join(d, "r", `f${i}.txt`), `file ${i}\n`.repeat(20));
    },
    (d) => sh(join(d, "r"), "git init -q && git add -A && git commit -qm c"),
  ],
  ["git clone, shallow, ~1 MB", null, (d, src) => sh(d, `git clone -q --depth 1 file://${src} c`)],
  ["npm init -y", null, (d) => sh(d, "npm init -y > /dev/null")],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const work = mkdtempSync("/var/tmp/computerd-bench-");
const targets = {
  fuse: join(work, "mnt"),
  ...(withKernel ? { kernel: join(work, "kernel-mnt") } : {}),
  tmpfs: mkdtempSync("/dev/shm/computerd-bench-"),
  disk: join(work, "disk"),
};
mkdirSync(targets.disk);
const source = join(work, "clone-source");
mkdirSync(source);
sh(
  source,
  "git init -q && head -c 1000000 /dev/urandom | base64 > data.txt && for i in $(seq 1 50); do echo $i > s$i; done && git add -A && git commit -qm src",
);

const daemons = [await startComputerd(targets.fuse)];
if (withKernel) daemons.push(await startComputerd(targets.kernel, { COMPUTERD_FUSE_DRIVER: "kernel" }));
const mounts = withKernel ? ["fuse", "kernel"] : ["fuse"];
const times = new Map(
  scenarios.map(([name]) => [name, Object.fromEntries(Object.keys(targets).map((target) => [target, []]))]),
);
let counter = 0;
try {
  for (let rep = 0; rep <= reps; rep++) {
    for (const [name, setup, body] of scenarios) {
      for (const [target, root] of Object.entries(targets)) {
        const dir = join(root, `run-${counter++}-${Math.random().toString(36).slice(2, 8)}`);
        mkdirSync(dir);
        if (setup) setup(dir);
        const started = performance.now();
        body(dir, source);
        const elapsed = performance.now() - started;
        if (rep > 0) times.get(name)[target].push(elapsed);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  for (const daemon of daemons) {
    daemon.kill("SIGTERM");
    await new Promise((resolve) => daemon.on("exit", resolve));
  }
  rmSync(targets.tmpfs, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}

const rows = [
  [
    "scenario",
    ...mounts.map((m) => `${m} ms`),
    "tmpfs ms",
    "disk ms",
    ...mounts.flatMap((m) => [`${m}/tmpfs`, `${m}/disk`]),
  ],
];
for (const [name] of scenarios) {
  const t = times.get(name);
  const [m, d] = [median(t.tmpfs), median(t.disk)];
  const own = mounts.map((target) => median(t[target]));
  rows.push([
    name,
    ...own.map((f) => f.toFixed(1)),
    m.toFixed(1),
    d.toFixed(1),
    ...own.flatMap((f) => [`${(f / m).toFixed(2)}x`, `${(f / d).toFixed(2)}x`]),
  ]);
}
console.log(
  `\nfs-bench: ${reps} repetitions after 1 warm-up, interleaved; medians. disk = ${execFileSync("df", ["-T", "/var/tmp"], { encoding: "utf8" }).split("\n")[1]?.split(/\s+/)[1]} at /var/tmp, tmpfs = /dev/shm\n`,
);
console.log(`| ${rows[0].join(" | ")} |\n|${rows[0].map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`);
for (const row of rows.slice(1)) console.log(`| ${row.join(" | ")} |`);
console.log(
  "\nreproduce: npx -y pnpm@12.4.2 --filter @cloudflare/computerd run build && npx -y pnpm@12.4.2 --filter @cloudflare/computerd run bench",
);

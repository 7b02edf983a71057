#!/usr/bin/env node
/**
 * fuse-floor: what the FUSE binding alone costs, with handlers that do
 * nothing, on both of our patch's loops (requests answered on the JavaScript
 * thread, `main`, or handed from libfuse's worker threads, `threads`), next
 * to the local disk in the same run. It bounds what any computerd change
 * above the binding can reach on the fs-bench rows:
 * - 1000 stats that each reach the daemon (attr_timeout=0; a stat right
 *   after a write does too, the kernel having dropped its cached size);
 * - 64 MiB written in 1 MiB writes and closed (every byte crosses to the daemon).
 * The workload runs in a child process, so the binding's loop (this one)
 * stays free to answer. Needs root and /dev/fuse.
 *
 *   node packages/computerd/bench/fuse-floor.mjs [--reps 5]
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

const repsAt = process.argv.indexOf("--reps");
const reps = repsAt === -1 ? 5 : Number(process.argv[repsAt + 1]);
const Fuse = createRequire(import.meta.url)("fuse-napi");
const root = mkdtempSync("/tmp/fuse-floor-");
const disk = mkdtempSync("/var/tmp/fuse-floor-");
const loops = ["main", "threads"];

const file = {
  mode: 0o100644,
  uid: 0,
  gid: 0,
  size: 1,
  nlink: 1,
  ino: 2,
  blksize: 4096,
  blocks: 1,
  atime: 0,
  mtime: 0,
  ctime: 0,
};
const dir = { ...file, mode: 0o40755, ino: 1, nlink: 2 };
let size = 0;
const ops = {
  initWithConfig: (conn, cb) => cb(0, { maxWrite: Math.min(conn.maxWrite, 1024 * 1024), want: conn.want }),
  getattr: (path, cb) => (path === "/" ? cb(0, dir) : cb(0, { ...file, size })),
  fgetattr: (_path, _fd, cb) => cb(0, { ...file, size }),
  create: (_path, _mode, cb) => {
    size = 0;
    cb(0, 1);
  },
  open: (_path, _flags, cb) => cb(0, 1),
  truncate: (_path, to, cb) => {
    size = to;
    cb(0);
  },
  release: (_path, _fd, cb) => cb(0),
  write: (_path, _fd, _buffer, length, position, cb) => {
    size = Math.max(size, position + length);
    cb(length);
  },
};

/** Runs in the child: medians of `reps` timings of each workload on each target, interleaved. */
const workload = `
const fs = require("node:fs");
const reps = Number(process.argv[1]);
const targets = process.argv.slice(2);
const MiB = 1 << 20;
const block = Buffer.alloc(MiB, 7);
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
function time(body) { const t = performance.now(); body(); return performance.now() - t; }
function stats(dir) { for (let i = 0; i < 1000; i++) fs.statSync(dir + "/f" + i); }
function write(dir) {
  const fd = fs.openSync(dir + "/big", "w");
  for (let i = 0; i < 64; i++) fs.writeSync(fd, block, 0, MiB, i * MiB);
  fs.closeSync(fd);
}
const disk = targets[targets.length - 1];
for (let i = 0; i < 1000; i++) fs.writeFileSync(disk + "/f" + i, "x");
const rows = {};
for (const [name, body] of [["stat 1000 files (each reaches the daemon)", stats], ["write 64 MiB (1 MiB writes)", write]]) {
  const times = targets.map(() => []);
  for (const target of targets) body(target);
  for (let r = 0; r < reps; r++) targets.forEach((target, i) => times[i].push(time(() => body(target))));
  rows[name] = times.map(median);
}
console.log(JSON.stringify(rows));
`;

const mounts = [];
try {
  for (const loop of loops) {
    const mnt = join(root, loop);
    mkdirSync(mnt);
    // Our patch reads the loop from the environment when the mount comes up.
    process.env.COMPUTERD_FUSE_LOOP = loop;
    const fuse = new Fuse(mnt, ops, { autoUnmount: true, attrTimeout: 0, entryTimeout: 30, timeout: false });
    await new Promise((resolve, reject) => fuse.mount((error) => (error ? reject(error) : resolve())));
    mounts.push({ mnt, fuse });
  }
  const targets = [...mounts.map(({ mnt }) => mnt), disk];
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", workload, String(reps), ...targets]);
  const rows = JSON.parse(stdout);
  console.log(
    `\nfuse-floor: fuse-napi with no-op handlers vs disk (ext4 at /var/tmp); interleaved, medians of ${reps}\n`,
  );
  console.log("| workload | main loop ms | threads ms | disk ms | main/disk | threads/disk |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const [name, [main, threads, d]] of Object.entries(rows)) {
    const cells = [main, threads, d].map((ms) => ms.toFixed(1));
    console.log(`| ${name} | ${cells.join(" | ")} | ${(main / d).toFixed(2)}x | ${(threads / d).toFixed(2)}x |`);
  }
  console.log(`\nreproduce: node packages/computerd/bench/fuse-floor.mjs --reps ${reps}`);
} finally {
  for (const { fuse } of mounts) await new Promise((resolve) => fuse.unmount(() => resolve()));
  rmSync(root, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
}

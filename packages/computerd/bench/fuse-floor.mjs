#!/usr/bin/env node
/**
 * fuse-floor: what the FUSE binding alone costs, with handlers that do
 * nothing, next to the local disk in the same run. It bounds what any
 * computerd change above the binding can reach on the fs-bench rows:
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
const mnt = join(root, "mnt");
const disk = mkdtempSync("/var/tmp/fuse-floor-");
mkdirSync(mnt);

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

/** Runs in the child: medians of `reps` timings of each workload on the mount and on disk. */
const workload = `
const fs = require("node:fs");
const [mnt, disk, reps] = [process.argv[1], process.argv[2], Number(process.argv[3])];
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
for (let i = 0; i < 1000; i++) fs.writeFileSync(disk + "/f" + i, "x");
const rows = {};
for (const [name, body] of [["stat 1000 files (each reaches the daemon)", stats], ["write 64 MiB (1 MiB writes)", write]]) {
  const m = [], d = [];
  body(mnt); body(disk);
  for (let r = 0; r < reps; r++) { m.push(time(() => body(mnt))); d.push(time(() => body(disk))); }
  rows[name] = [median(m), median(d)];
}
console.log(JSON.stringify(rows));
`;

const fuse = new Fuse(mnt, ops, { autoUnmount: true, attrTimeout: 0, entryTimeout: 30, timeout: false });
await new Promise((resolve, reject) => fuse.mount((error) => (error ? reject(error) : resolve())));
try {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", workload, mnt, disk, String(reps)]);
  const rows = JSON.parse(stdout);
  console.log(`\nfuse-floor: fuse-napi with no-op handlers vs disk (ext4 at /var/tmp); medians of ${reps}\n`);
  console.log("| workload | bare binding ms | disk ms | binding/disk |");
  console.log("|---|---:|---:|---:|");
  for (const [name, [m, d]] of Object.entries(rows)) {
    console.log(`| ${name} | ${m.toFixed(1)} | ${d.toFixed(1)} | ${(m / d).toFixed(2)}x |`);
  }
  console.log(`\nreproduce: node packages/computerd/bench/fuse-floor.mjs --reps ${reps}`);
} finally {
  await new Promise((resolve) => fuse.unmount(() => resolve()));
  rmSync(root, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
}

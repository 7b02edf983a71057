#!/usr/bin/env node
/**
 * fuse-floor: what the FUSE binding alone costs, with handlers that do
 * nothing, on both of our patch's loops (requests answered on the JavaScript
 * thread, `main`, or handed from libfuse's worker threads, `threads`), and
 * on computerd's own protocol layer (`kernel`: src/mount/kernel over
 * native/fuse_dev.c, from dist/), next to the local disk in the same run. It bounds what any computerd change
 * above the binding can reach on the fs-bench rows:
 * - 1000 stats that each reach the daemon (attr_timeout=0; a stat right
 *   after a write does too, the kernel having dropped its cached size);
 * - 64 MiB written in 1 MiB writes and closed (every byte crosses to the daemon).
 * The workload runs in a child process, so the binding's loop (this one)
 * stays free to answer. The `c` column is the floor under all of them:
 * bench/fuse-floor.c, a one-thread C daemon with blocking reads and writes
 * whose handlers only answer (built here with the system `cc`). Our layer
 * and the C daemon each run twice: on /dev/fuse reads and on FUSE over
 * io_uring (`uring` columns; the fuse module's enable_uring is turned on).
 * Our layer
 * busy-polls as the daemon does
 * (`--busy-poll auto`, src/mount/kernel/busy-poll.ts); `--busy-poll off`
 * measures the bare ping-pong, `spin` and `qos` each way alone. A `qos`
 * hold is machine-wide, so it speeds up fuse-napi's columns too. Needs root
 * and /dev/fuse.
 *
 *   node packages/computerd/bench/fuse-floor.mjs [--reps 5] [--busy-poll auto|qos|spin|off]
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BusyPoll, DEFAULT_SPIN_MICROS } from "../dist/mount/kernel/busy-poll.js";
import { loadFuseDev } from "../dist/mount/kernel/fuse-dev.js";
import { initHandler } from "../dist/mount/kernel/init.js";
import { ATTR_OUT_SIZE, ENTRY_OUT_SIZE, Op, OUT_HEADER, writeAttr, writeEntry } from "../dist/mount/kernel/protocol.js";
import { Session } from "../dist/mount/kernel/session.js";
import { enableUring, UringTransport } from "../dist/mount/kernel/uring.js";

const repsAt = process.argv.indexOf("--reps");
const reps = repsAt === -1 ? 5 : Number(process.argv[repsAt + 1]);
const busyAt = process.argv.indexOf("--busy-poll");
const busySetting = busyAt === -1 ? "auto" : process.argv[busyAt + 1];
const busyPoll = new BusyPoll({ setting: busySetting, spinMicros: DEFAULT_SPIN_MICROS });
const Fuse = createRequire(import.meta.url)("fuse-napi");
const root = mkdtempSync("/tmp/fuse-floor-");
const disk = mkdtempSync("/var/tmp/fuse-floor-");
const loops = ["main", "threads"];
const MiB = 1024 * 1024;

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

/** The same no-op filesystem on our own layer: every stat reaches it (attr_valid 0), names stay cached. */
async function mountKernel(mnt, uring) {
  const dev = loadFuseDev();
  const fd = dev.open();
  const log = { info: () => {}, error: (message) => console.error(message) };
  const session = new Session(dev, fd, MiB, log, undefined, busyPoll);
  const never = { seconds: 0, nanos: 0 };
  const long = { seconds: 30, nanos: 0 };
  const attrOf = (nodeid) => (nodeid === 1 ? dir : { ...file, size });
  let ready;
  const initialized = new Promise((resolve) => (ready = resolve));
  session.on(
    Op.INIT,
    "init",
    initHandler({ maxWrite: MiB, writebackCache: false, noOpen: false, uring }, (negotiated) => ready(negotiated)),
  );
  session.on(Op.GETATTR, "getattr", (request) => {
    session.out.fill(0, OUT_HEADER, OUT_HEADER + 16);
    writeAttr(session.out, OUT_HEADER + 16, attrOf(request.nodeid));
    return ATTR_OUT_SIZE;
  });
  session.on(Op.LOOKUP, "lookup", () => {
    writeEntry(session.out, OUT_HEADER, 2, attrOf(2), long, never);
    return ENTRY_OUT_SIZE;
  });
  const openReply = () => {
    session.out.fill(0, OUT_HEADER, OUT_HEADER + 16);
    session.out.writeUInt32LE(1, OUT_HEADER);
    return 16;
  };
  session.on(Op.CREATE, "create", () => {
    size = 0;
    writeEntry(session.out, OUT_HEADER, 2, attrOf(2), long, never);
    session.out.fill(0, OUT_HEADER + ENTRY_OUT_SIZE, OUT_HEADER + ENTRY_OUT_SIZE + 16);
    session.out.writeUInt32LE(1, OUT_HEADER + ENTRY_OUT_SIZE);
    return ENTRY_OUT_SIZE + 16;
  });
  session.on(Op.OPEN, "open", openReply);
  session.on(Op.OPENDIR, "opendir", openReply);
  session.on(Op.SETATTR, "setattr", (_request, input) => {
    if ((input.readUInt32LE(40) & 0x8) !== 0) size = input.readUInt32LE(56);
    session.out.fill(0, OUT_HEADER, OUT_HEADER + 16);
    writeAttr(session.out, OUT_HEADER + 16, attrOf(2));
    return ATTR_OUT_SIZE;
  });
  session.on(Op.WRITE, "write", (_request, input) => {
    const length = input.readUInt32LE(56);
    size = Math.max(size, input.readUInt32LE(48) + length);
    session.out.writeUInt32LE(length, OUT_HEADER);
    session.out.writeUInt32LE(0, OUT_HEADER + 4);
    return 8;
  });
  session.on(Op.RELEASE, "release", () => 0);
  session.on(Op.FORGET, "forget", () => undefined);
  session.on(Op.BATCH_FORGET, "batch_forget", () => undefined);
  dev.mount("floor", mnt, "fuse.floor", 6, `fd=${fd},rootmode=40000,user_id=0,group_id=0`);
  session.start();
  const negotiated = await initialized;
  let transport;
  if (uring) {
    if (!negotiated.uring) throw new Error("the kernel did not offer FUSE over io_uring");
    transport = UringTransport.open(dev, session, MiB, log);
    if (typeof transport === "string") throw new Error(transport);
  }
  return {
    mnt,
    fuse: {
      unmount: (done) =>
        dev.unmount(mnt, 2, () => {
          session.stop();
          transport?.close();
          done();
        }),
    },
  };
}

/** bench/fuse-floor.c, compiled into the bench's directory and mounted at `mnt`; `cpu()` is its CPU time in µs. */
async function mountC(mnt, uring) {
  const binary = join(root, "fuse-floor-c");
  execFileSync("cc", ["-O2", "-o", binary, fileURLToPath(new URL("./fuse-floor.c", import.meta.url))]);
  const flags = [...(busyPoll.mode === "qos" ? ["--qos"] : []), ...(uring ? ["--uring"] : [])];
  const child = spawn(binary, [mnt, ...flags], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = [];
  const waiting = [];
  let partial = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text) => {
    partial += text;
    const done = partial.split("\n");
    partial = done.pop();
    for (const line of done) (waiting.shift() ?? ((value) => lines.push(value)))(line);
  });
  const next = () =>
    lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve));
  if ((await next()) !== "ready") throw new Error("fuse-floor-c did not come up");
  return {
    mnt,
    cpu: async () => {
      child.kill("SIGUSR1");
      // The daemon sees the signal at its next request: one stat makes it.
      await promisify(execFile)("stat", [`${mnt}/f0`]);
      return Number((await next()).split(" ")[1]);
    },
    fuse: {
      unmount: (done) => {
        child.on("exit", () => done());
        execFile("umount", [mnt]);
      },
    },
  };
}

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
  const off = enableUring({ info: (line) => console.log(line), error: (line) => console.error(line) });
  if (off !== undefined) throw new Error(`FUSE over io_uring is unavailable: ${off}`);
  for (const [name, mount] of [
    ["kernel", (mnt) => mountKernel(mnt, false)],
    ["kernel-uring", (mnt) => mountKernel(mnt, true)],
    ["c", (mnt) => mountC(mnt, false)],
    ["c-uring", (mnt) => mountC(mnt, true)],
  ]) {
    const mnt = join(root, name);
    mkdirSync(mnt);
    mounts.push(await mount(mnt));
  }
  const targets = [...mounts.map(({ mnt }) => mnt), disk];
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", workload, String(reps), ...targets]);
  const rows = JSON.parse(stdout);
  const labels = ["fuse-napi main", "fuse-napi threads", "kernel", "kernel uring", "c", "c uring", "disk"];
  console.log(
    `\nfuse-floor: no-op handlers on fuse-napi (main loop, threads), on our own layer (kernel, busy polling ${busyPoll.mode}) and in C (the floor${busyPoll.mode === "qos" ? ", holding the same latency request" : ""}), each of the last two on /dev/fuse reads and on io_uring, vs disk (ext4 at /var/tmp); interleaved, medians of ${reps}\n`,
  );
  console.log(
    `| workload | ${labels.map((label) => `${label} ms`).join(" | ")} | kernel/c | kernel uring/c uring | c/c uring |`,
  );
  console.log(`|---|${labels.map(() => "---:").join("|")}|---:|---:|---:|`);
  for (const [name, times] of Object.entries(rows)) {
    const [, , kernel, kernelUring, c, cUring] = times;
    console.log(
      `| ${name} | ${times.map((ms) => ms.toFixed(1)).join(" | ")} | ${(kernel / c).toFixed(2)}x | ${(kernelUring / cUring).toFixed(2)}x | ${(c / cUring).toFixed(2)}x |`,
    );
  }
  const stat = rows["stat 1000 files (each reaches the daemon)"];
  console.log(
    `\nper stat that reaches the daemon (round trip, caller included): ${labels.map((label, i) => `${label} ${stat[i].toFixed(1)} µs`).join(", ")}`,
  );
  // The daemon's own CPU per getattr: 20,000 stats against one mount at a time, this process's CPU time over them.
  const stats = 20_000;
  const cpu = {};
  for (const [label, at] of [
    ["fuse-napi main", 0],
    ["kernel", 2],
    ["kernel uring", 3],
    ["c", 4],
    ["c uring", 5],
  ]) {
    const usage =
      mounts[at].cpu ??
      (async () => {
        const used = process.cpuUsage();
        return used.user + used.system;
      });
    const before = await usage();
    await promisify(execFile)(process.execPath, [
      "-e",
      `const fs = require("node:fs"); for (let i = 0; i < ${stats}; i++) fs.statSync(process.argv[1] + "/f" + (i % 1000));`,
      mounts[at].mnt,
    ]);
    cpu[label] = ((await usage()) - before) / stats;
  }
  console.log(
    `daemon CPU per stat (user+system of the answering process over ${stats} stats): ${Object.entries(cpu)
      .map(([label, us]) => `${label} ${us.toFixed(1)} µs`)
      .join(", ")}`,
  );
  console.log(`\nreproduce: node packages/computerd/bench/fuse-floor.mjs --reps ${reps} --busy-poll ${busySetting}`);
} finally {
  for (const { fuse } of mounts) await new Promise((resolve) => fuse.unmount(() => resolve()));
  busyPoll.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
}

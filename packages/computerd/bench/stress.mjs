#!/usr/bin/env node
/**
 * stress: several whole-tree jobs at once on computerd's mount, and the
 * daemon's memory while they run. Issue 20's stress run: 4 parallel
 * `git clone`s of this repository plus a `cp -a` of a ~20,000-file
 * node_modules (three copies of bench/fixtures/workloads' tree side by side),
 * then one `rm -rf` of everything. On the mount (the default driver and, with
 * `--driver NAME`, COMPUTERD_FUSE_DRIVER=NAME) and on a tmpfs (the fair
 * baseline), one target after the other. computerd's resident set is sampled
 * every 100 ms from /proc: the peak over the run and what is left after the
 * final `rm -rf` and the idle reclaim (bounded memory means the second comes
 * back down).
 *
 * Needs root, /dev/fuse and the workloads cache (run workloads.mjs once);
 * builds nothing (run the computerd build first).
 *
 *   node packages/computerd/bench/stress.mjs [--driver fuse-napi] [--clones 4] [--copies 3]
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startComputerd } from "./daemon.mjs";

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const drivers = process.argv.flatMap((arg, i) => (arg === "--driver" ? [process.argv[i + 1]] : []));
const clones = option("--clones", 4);
const copies = option("--copies", 3);
const repository = fileURLToPath(new URL("../../../", import.meta.url));
const tarball = join(repository, ".cache", "bench-workloads", "node_modules.tar");
if (!existsSync(tarball)) {
  console.error(`stress: ${tarball} is missing; run packages/computerd/bench/workloads.mjs once first`);
  process.exit(2);
}
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1" };

/** Runs a shell script to completion; resolves with its wall time in ms. */
function run(cwd, script) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (data) => {
      stderr += data;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${script}: exit ${code}: ${stderr}`)),
    );
  });
}

function residentMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : Number.NaN;
}

/** Samples a process's RSS until stopped; `stop()` returns the peak. */
function sampleRss(pid) {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid));
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, residentMiB(pid));
  };
}

const files = Number(execFileSync("bash", ["-c", `tar -tf ${tarball} | grep -vc '/$'`], { encoding: "utf8" }));
const work = mkdtempSync("/var/tmp/computerd-stress-");
const targets = {
  mount: { root: join(work, "mnt"), env: {} },
  ...Object.fromEntries(
    drivers.map((driver) => [driver, { root: join(work, `${driver}-mnt`), env: { COMPUTERD_FUSE_DRIVER: driver } }]),
  ),
  tmpfs: { root: mkdtempSync("/dev/shm/computerd-stress-"), env: null },
};
const results = {};
try {
  for (const [name, target] of Object.entries(targets)) {
    const daemon = target.env ? await startComputerd(target.root, target.env) : null;
    try {
      const dir = join(target.root, "stress");
      mkdirSync(dir);
      // The source tree is made before the clock starts: the stress is what runs on it.
      const extract = Array.from({ length: copies }, (_, i) => `mkdir t${i} && tar -xf ${tarball} -C t${i}`);
      await run(dir, `mkdir src && cd src && ${extract.join(" && ")}`);
      const startRss = daemon ? residentMiB(daemon.pid) : Number.NaN;
      const stop = daemon ? sampleRss(daemon.pid) : () => Number.NaN;
      const started = performance.now();
      const jobs = [
        ...Array.from({ length: clones }, (_, i) => run(dir, `git clone -q ${repository} clone-${i}`)),
        run(dir, "cp -a src copy"),
      ];
      const each = await Promise.all(jobs);
      const parallel = performance.now() - started;
      const removal = await run(target.root, "rm -rf stress");
      const peak = stop();
      // What the daemon keeps once the tree is gone: its idle reclaimer runs after 3 s of a still store
      // and RSS (COMPUTERD_IDLE_RECLAIM_MS, docs/computerd.md "Idle reclaim"), so wait past that.
      await new Promise((resolve) => setTimeout(resolve, 8000));
      results[name] = {
        parallel,
        slowestClone: Math.max(...each.slice(0, clones)),
        copy: each[clones],
        removal,
        startRss,
        peak,
        endRss: daemon ? residentMiB(daemon.pid) : Number.NaN,
      };
    } finally {
      if (daemon) {
        daemon.kill("SIGTERM");
        await new Promise((resolve) => daemon.on("exit", resolve));
      }
    }
  }
} finally {
  rmSync(targets.tmpfs.root, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}

const s = (ms) => (ms / 1000).toFixed(2);
const mib = (value) => (Number.isNaN(value) ? "-" : value.toFixed(0));
console.log(
  `\nstress: ${clones} parallel git clones of this repository + cp -a of ${copies * files} files (${copies} copies of bench/fixtures/workloads' node_modules), then rm -rf of all of it\n`,
);
const header = [
  "target",
  "total s",
  "parallel part s",
  "slowest clone s",
  "cp -a s",
  "rm -rf s",
  "total/tmpfs",
  "RSS before MiB",
  "peak MiB",
  "after MiB",
];
console.log(`| ${header.join(" | ")} |\n|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`);
const base = results.tmpfs.parallel + results.tmpfs.removal;
for (const [name, r] of Object.entries(results)) {
  const total = r.parallel + r.removal;
  console.log(
    `| ${name} | ${s(total)} | ${s(r.parallel)} | ${s(r.slowestClone)} | ${s(r.copy)} | ${s(r.removal)} | ${(total / base).toFixed(1)}x | ${mib(r.startRss)} | ${mib(r.peak)} | ${mib(r.endRss)} |`,
  );
}
console.log(
  `\nreproduce: node packages/computerd/bench/stress.mjs${drivers.map((driver) => ` --driver ${driver}`).join("")} --clones ${clones} --copies ${copies}`,
);

#!/usr/bin/env node
/**
 * workloads: what agents really do in /workspace, on computerd's mount
 * (the default driver, and with `--driver NAME` also COMPUTERD_FUSE_DRIVER=NAME;
 * `--kernel` is `--driver kernel`; `--writeback` also the default driver with
 * COMPUTERD_FUSE_WRITEBACK_CACHE=1; `--dev-fuse` also the default driver
 * with COMPUTERD_FUSE_URING=off, on /dev/fuse reads where the default takes
 * FUSE over io_uring),
 * a tmpfs (the fair baseline: the original keeps its filesystem in memory)
 * and the local disk, interleaved (each repetition runs every target before
 * the next), medians:
 * - tar -x of a real node_modules (bench/fixtures/workloads' lockfile,
 *   installed once with `npm ci` into .cache/bench-workloads, then offline);
 * - rm -rf of it; find -name '*.js' | xargs cat; tar -c of it (reads everything);
 * - git clone of this repository (local), git status in that clone;
 * - npm ci from the warm cache.
 * Prints the table, the daemons' peak RSS and the command. Needs root and
 * /dev/fuse; builds nothing (run the computerd build first).
 *
 *   node packages/computerd/bench/workloads.mjs [--reps 3] [--driver fuse-napi] [--kernel] [--writeback] [--dev-fuse]
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startComputerd } from "./daemon.mjs";
import { sh } from "./shell.mjs";
import { treeWorkloads } from "./tree-workloads.mjs";

const repsAt = process.argv.indexOf("--reps");
const reps = repsAt === -1 ? 3 : Number(process.argv[repsAt + 1]);
/** Extra daemons, each a column of its own beside the default one: a name and its environment. */
const variants = [
  ...process.argv.flatMap((arg, i) => (arg === "--driver" ? [process.argv[i + 1]] : [])),
  ...(process.argv.includes("--kernel") ? ["kernel"] : []),
].map((driver) => ({ name: driver, flag: `--driver ${driver}`, env: { COMPUTERD_FUSE_DRIVER: driver } }));
if (process.argv.includes("--dev-fuse")) {
  variants.push({ name: "dev-fuse", flag: "--dev-fuse", env: { COMPUTERD_FUSE_URING: "off" } });
}
if (process.argv.includes("--writeback")) {
  variants.push({ name: "writeback", flag: "--writeback", env: { COMPUTERD_FUSE_WRITEBACK_CACHE: "1" } });
}
const fixture = fileURLToPath(new URL("./fixtures/workloads/", import.meta.url));
const repository = fileURLToPath(new URL("../../../", import.meta.url));
const cache = join(repository, ".cache", "bench-workloads");
const NPM_CI = "npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error";

/** The node_modules (and its tarball) every target starts from; made once, then reused. */
function prepare() {
  const tarball = join(cache, "node_modules.tar");
  const lock = readFileSync(join(fixture, "package-lock.json"), "utf8");
  if (
    existsSync(tarball) &&
    existsSync(join(cache, "package-lock.json")) &&
    readFileSync(join(cache, "package-lock.json"), "utf8") === lock
  ) {
    return tarball;
  }
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  copyFileSync(join(fixture, "package.json"), join(cache, "package.json"));
  copyFileSync(join(fixture, "package-lock.json"), join(cache, "package-lock.json"));
  sh(cache, `${NPM_CI} && tar -cf node_modules.tar node_modules`);
  return tarball;
}

const tarball = prepare();
const files = Number(
  execFileSync("bash", ["-c", "tar -tf node_modules.tar | grep -vc '/$'"], { cwd: cache, encoding: "utf8" }),
);
const bytes = Number(execFileSync("du", ["-sb", join(cache, "node_modules")], { encoding: "utf8" }).split("\t")[0]);

const workloads = [
  ...treeWorkloads({ tarball, repository }).map(({ name, setup, body }) => [name, setup, body]),
  [
    "npm ci from a warm cache",
    (d) => {
      copyFileSync(join(fixture, "package.json"), join(d, "package.json"));
      copyFileSync(join(fixture, "package-lock.json"), join(d, "package-lock.json"));
    },
    (d) => sh(d, NPM_CI),
  ],
];

function peakRss(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : Number.NaN;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const work = mkdtempSync("/var/tmp/computerd-workloads-");
const targets = {
  mount: join(work, "mnt"),
  ...Object.fromEntries(variants.map(({ name }) => [name, join(work, `${name}-mnt`)])),
  tmpfs: mkdtempSync("/dev/shm/computerd-workloads-"),
  disk: join(work, "disk"),
};
mkdirSync(targets.disk);
const daemons = { mount: await startComputerd(targets.mount, {}) };
for (const { name, env } of variants) daemons[name] = await startComputerd(targets[name], env);
const times = new Map(workloads.map(([name]) => [name, Object.fromEntries(Object.keys(targets).map((t) => [t, []]))]));
const rss = {};
let counter = 0;
try {
  for (let rep = 0; rep < reps; rep++) {
    for (const [name, setup, body] of workloads) {
      for (const [target, root] of Object.entries(targets)) {
        const dir = join(root, `run-${counter++}`);
        mkdirSync(dir);
        if (setup) setup(dir);
        // What a setup wrote is on its way out of the page cache only for the disk; all start alike.
        const started = performance.now();
        body(dir);
        times.get(name)[target].push(performance.now() - started);
        sh(root, `rm -rf ${dir}`);
      }
    }
  }
  for (const [name, child] of Object.entries(daemons)) rss[name] = peakRss(child.pid);
} finally {
  for (const child of Object.values(daemons)) {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));
  }
  rmSync(targets.tmpfs, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}

const mounts = ["mount", ...variants.map(({ name }) => name)];
const header = ["workload", ...mounts.map((m) => `${m} s`), "tmpfs s", "disk s", ...mounts.map((m) => `${m}/tmpfs`)];
console.log(
  `\nworkloads: a node_modules of ${files} files, ${(bytes / 1e6).toFixed(0)} MB (bench/fixtures/workloads); ${reps} repetition(s), interleaved, medians; mount = default driver${variants
    .map(
      ({ name, env }) =>
        `, ${name} = ${Object.entries(env)
          .map(([key, value]) => `${key}=${value}`)
          .join(" ")}`,
    )
    .join("")}; disk = /var/tmp, tmpfs = /dev/shm\n`,
);
console.log(`| ${header.join(" | ")} |\n|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`);
for (const [name] of workloads) {
  const t = times.get(name);
  const [m, d] = [median(t.tmpfs), median(t.disk)];
  const own = mounts.map((target) => median(t[target]));
  const cells = [...own, m, d].map((ms) => (ms / 1000).toFixed(2));
  console.log(`| ${name} | ${cells.join(" | ")} | ${own.map((f) => `${(f / m).toFixed(1)}x`).join(" | ")} |`);
}
console.log(
  `\npeak RSS: ${Object.entries(rss)
    .map(([name, mb]) => `${name} ${mb.toFixed(0)} MiB`)
    .join(", ")}`,
);
console.log(
  `\nreproduce: node packages/computerd/bench/workloads.mjs --reps ${reps}${variants.map(({ flag }) => ` ${flag}`).join("")}`,
);

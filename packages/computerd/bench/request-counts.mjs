#!/usr/bin/env node
/**
 * request-counts: how many FUSE requests each tree workload sends the
 * kernel driver, by op (COMPUTERD_FUSE_TRACE=summary), and in all (the
 * daemon's `kernel_requests`, which also counts FORGETs). The same
 * node_modules tarball and workloads as workloads.mjs (run that once first:
 * it makes the tarball), one daemon, each workload in a fresh directory
 * after its setup. Counts, not times: the numbers move only with what the
 * kernel caches, so one run is enough. Needs root and /dev/fuse; builds
 * nothing (run the computerd build first). COMPUTERD_* variables pass
 * through to the daemon (COMPUTERD_FUSE_NO_OPEN=off compares).
 * `--floor-us N` adds what the requests alone cost at N µs a round trip
 * (fuse-floor.mjs's `c` column: a daemon that does nothing), the time no
 * daemon can go under on this machine.
 *
 *   node packages/computerd/bench/request-counts.mjs [--ops] [--floor-us 11.7]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startComputerd } from "./daemon.mjs";
import { sh } from "./shell.mjs";
import { treeWorkloads } from "./tree-workloads.mjs";

const repository = fileURLToPath(new URL("../../../", import.meta.url));
const tarball = join(repository, ".cache", "bench-workloads", "node_modules.tar");
if (!existsSync(tarball)) throw new Error(`${tarball} is missing: run bench/workloads.mjs once to make it`);
const showOps = process.argv.includes("--ops");
const floorAt = process.argv.indexOf("--floor-us");
const floorMicros = floorAt === -1 ? undefined : Number(process.argv[floorAt + 1]);
const workloads = treeWorkloads({ tarball, repository }).map(({ short, setup, body }) => [short, setup, body]);

const work = mkdtempSync("/var/tmp/computerd-requests-");
const mountPoint = join(work, "mnt");
const traceFile = join(work, "trace.txt");
const child = await startComputerd(mountPoint, {
  COMPUTERD_FUSE_DRIVER: "kernel",
  COMPUTERD_FUSE_TRACE: "summary",
  COMPUTERD_FUSE_TRACE_FILE: traceFile,
});
const port = child.port;

/** Every op's count so far (the trace's last summary) and the daemon's total. */
async function counts() {
  const before = existsSync(traceFile) ? readFileSync(traceFile, "utf8").length : 0;
  child.kill("SIGUSR2");
  for (let i = 0; i < 200 && (!existsSync(traceFile) || readFileSync(traceFile, "utf8").length === before); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const text = readFileSync(traceFile, "utf8");
  const last = text.slice(text.lastIndexOf("fuse trace summary"));
  const ops = {};
  for (const [, op, count] of last.matchAll(/^(\S+) count=(\d+)/gm)) ops[op] = Number(count);
  // A connection of its own each time: a kept-alive one may be closed by the daemon as it is reused.
  const stats = await new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/__computerd/stats", agent: false }, (response) => {
      let body = "";
      response.on("data", (data) => (body += data));
      response.on("end", () => resolve(JSON.parse(body)));
    }).on("error", reject);
  });
  return { ops, total: stats.kernel_requests };
}

const rows = [];
let counter = 0;
try {
  for (const [name, setup, body] of workloads) {
    const dir = join(mountPoint, `run-${counter++}`);
    mkdirSync(dir);
    if (setup) setup(dir);
    const before = await counts();
    body(dir);
    const after = await counts();
    const ops = {};
    for (const [op, count] of Object.entries(after.ops)) {
      const delta = count - (before.ops[op] ?? 0);
      if (delta > 0) ops[op] = delta;
    }
    rows.push({ name, total: after.total - before.total, ops });
    sh(mountPoint, `rm -rf ${dir}`);
  }
} catch (error) {
  console.error(child.output());
  throw error;
} finally {
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("exit", resolve));
  rmSync(work, { recursive: true, force: true });
}

const shown = ["open", "release", "opendir", "releasedir", "readdirplus", "lookup", "getattr", "read"];
const floorHeader = floorMicros === undefined ? [] : [`at ${floorMicros} µs s`];
const header = ["workload", "requests", ...floorHeader, ...shown];
console.log(`| ${header.join(" | ")} |\n|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`);
for (const { name, total, ops } of rows) {
  const floor = floorMicros === undefined ? [] : [((total * floorMicros) / 1e6).toFixed(2)];
  console.log(`| ${name} | ${[total, ...floor, ...shown.map((op) => ops[op] ?? 0)].join(" | ")} |`);
}
if (showOps) for (const { name, ops } of rows) console.log(`\n${name}: ${JSON.stringify(ops)}`);
console.log(
  `\nreproduce: ${Object.entries(process.env)
    .filter(([key]) => key.startsWith("COMPUTERD_"))
    .map(([key, value]) => `${key}=${value} `)
    .join(
      "",
    )}node packages/computerd/bench/request-counts.mjs${floorMicros === undefined ? "" : ` --floor-us ${floorMicros}`}`,
);

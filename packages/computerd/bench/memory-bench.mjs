#!/usr/bin/env node
/**
 * memory-bench: does computerd give memory back? On a real FUSE mount it runs
 * issue 16's loop (one 20 MiB file rewritten 30 times, each with fsync, by a
 * fresh python3 process), then writes a 20,000-file tree, then deletes the
 * file and the tree. Prints the daemon's VmRSS, the store's blob and orphan
 * bytes and the live data at each step, each taken once the daemon is idle
 * (gc swept and an idle reclaim ran since the last change). Needs root, /dev/fuse and python3;
 * builds nothing (build dofs and computerd first).
 *
 *   node packages/computerd/bench/memory-bench.mjs [--rounds 30] [--mib 20] [--files 20000]
 *
 * COMPUTERD_* variables pass through to the daemon (COMPUTERD_STORE=memory
 * measures the in-memory store).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const rounds = arg("rounds", 30);
const mib = arg("mib", 20);
const files = arg("files", 20_000);
const main = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const MB = 1_000_000;
const MiB = 1024 * 1024;

const root = mkdtempSync(join(tmpdir(), "computerd-membench-"));
const mountPoint = join(root, "workspace");
const child = spawn(process.execPath, [main], {
  env: {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    HOST: "127.0.0.1",
    PORT: "0",
    MOUNT_POINT: mountPoint,
    FUSE_MOUNT: "fuse",
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => key.startsWith("COMPUTERD_") || key === "GLIBC_TUNABLES"),
    ),
  },
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
child.stdout.on("data", (data) => (output += data));
child.stderr.on("data", (data) => (output += data));

const port = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`computerd did not start:\n${output}`)), 20_000);
  const check = () => {
    const match = /listening host=\S+ port=(\d+)/.exec(output);
    if (match) {
      clearTimeout(timer);
      resolve(Number(match[1]));
    }
  };
  child.stdout.on("data", check);
  child.stderr.on("data", check);
  child.on("exit", (code) => reject(new Error(`computerd exited (${code}):\n${output}`)));
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]) * 1024;
/** A fresh connection each time: a kept-alive one may have been closed by the server meanwhile. */
const stats = () =>
  new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/__computerd/stats", agent: false }, (response) => {
      let body = "";
      response.on("data", (data) => (body += data));
      response.on("end", () => resolve(JSON.parse(body)));
    }).on("error", reject);
  });
/** The daemon's resident bytes by kind of mapping: the brk heap, other anonymous memory (V8, mmapped buffers), files. */
function residentByKind() {
  const kinds = { heap: 0, anon: 0, file: 0 };
  let kind = "anon";
  for (const line of readFileSync(`/proc/${child.pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1];
      kind = name === "[heap]" ? "heap" : name === "" || name.startsWith("[") ? "anon" : "file";
      continue;
    }
    const resident = /^Rss:\s+(\d+) kB/.exec(line);
    if (resident) kinds[kind] += Number(resident[1]) * 1024;
  }
  return kinds;
}
const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`;
const rows = [];
/**
 * Waits until the store has no orphans and an idle reclaim has run since the
 * last change (or 30 s), then records a row: what an idle daemon holds.
 */
async function record(label, live) {
  const deadline = Date.now() + 30_000;
  let current = await stats();
  const settled = (now) =>
    now.orphan_bytes === 0 &&
    (now.reclaim_rev === undefined || (now.reclaim_rev >= now.vfs_rev && now.reclaim_runs > 0));
  while (!settled(current) && Date.now() < deadline) {
    await sleep(250);
    current = await stats();
  }
  await sleep(500);
  current = await stats();
  rows.push({
    label,
    rss: rss(),
    blobs: current.blob_bytes,
    orphans: current.orphan_bytes,
    live,
    kinds: residentByKind(),
    stats: current,
  });
}

try {
  await sleep(1000);
  await record("baseline", 0);
  const file = join(mountPoint, "c");
  const script = `import os;fd=os.open(${JSON.stringify(file)},os.O_CREAT|os.O_WRONLY|os.O_TRUNC);os.write(fd,os.urandom(${mib}<<20));os.fsync(fd)`;
  let peak = 0;
  const started = Date.now();
  for (let i = 0; i < rounds; i++) {
    execFileSync("python3", ["-c", script]);
    peak = Math.max(peak, rss());
  }
  const loopSeconds = (Date.now() - started) / 1000;
  rows.push({ label: "loop peak", rss: peak, blobs: Number.NaN, orphans: Number.NaN, live: mib * MiB });
  await record(`after ${rounds} x ${mib} MiB`, mib * MiB);

  // A node_modules-like tree: 200 directories of 100 files, 1 to 59 KiB of random bytes each.
  const tree = join(mountPoint, "node_modules");
  const treeScript = `
import os, random
random.seed(16)
total = 0
for d in range(${Math.ceil(files / 100)}):
    os.makedirs(os.path.join(${JSON.stringify(tree)}, "pkg%d" % d), exist_ok=True)
    for f in range(100):
        if d * 100 + f >= ${files}: break
        size = random.randint(1, 59) * 1024
        with open(os.path.join(${JSON.stringify(tree)}, "pkg%d" % d, "f%d.js" % f), "wb") as out:
            out.write(os.urandom(size))
        total += size
print(total)`;
  const treeBytes = Number(execFileSync("python3", ["-c", treeScript], { encoding: "utf8" }).trim());
  await record(`with a ${files}-file tree`, mib * MiB + treeBytes);
  execFileSync("rm", ["-rf", file, tree]);
  await record("after deleting both", 0);

  console.log(
    `computerd memory bench: ${rounds} x ${mib} MiB rewrite with fsync (${loopSeconds.toFixed(1)} s), a ${files}-file tree`,
  );
  console.log(`store: ${process.env.COMPUTERD_STORE ?? "default"}`);
  console.log("step                          rss      blob bytes  orphans   live data");
  for (const row of rows) {
    const cell = (value) => (Number.isNaN(value) ? "-" : mb(value)).padStart(9);
    const kinds = row.kinds
      ? `   (heap ${mb(row.kinds.heap)}, anon ${mb(row.kinds.anon)}, files ${mb(row.kinds.file)})`
      : "";
    console.log(
      `${row.label.padEnd(28)}${cell(row.rss)}${cell(row.blobs)}${cell(row.orphans)}${cell(row.live)}${kinds}`,
    );
  }
  if (process.argv.includes("--verbose"))
    for (const row of rows) if (row.stats) console.log(row.label, JSON.stringify(row.stats));
  const base = rows[0].rss;
  console.log(
    `loop peak / (live + baseline) = ${(peak / (mib * MiB + base)).toFixed(2)}; after deletes / baseline = ${(rows.at(-1).rss / base).toFixed(2)}`,
  );
} catch (error) {
  console.error(`${error?.stack ?? error}\n--- computerd output ---\n${output}`);
  process.exitCode = 1;
} finally {
  child.kill("SIGTERM");
  await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, 10_000);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  try {
    execFileSync("fusermount", ["-uz", mountPoint], { stdio: "ignore" });
  } catch {
    // Already unmounted.
  }
  rmSync(root, { recursive: true, force: true });
}

#!/usr/bin/env node
/**
 * worker-shell latency, end to end: one HTTP request into a Worker whose
 * Durable Object runs one command on the backend (just-bash in a Dynamic
 * Worker, core commands only) and returns its result. Miniflare
 * (programmatic) with SQLite storage and the Worker Loader.
 *
 * Workloads: `true`, and `grep -rn TODO .` in /workspace over 1,000 files
 * (10 directories × 100 files of 20 lines; every 10th line of every 3rd file
 * says TODO), each:
 *   - warm: the object's own backend, its Dynamic Worker loaded once
 *     (10 warm-up runs first);
 *   - cold: a backend with a never-used `loaderId` per run, so the Worker
 *     Loader builds a new Worker (modules parsed, isolate started). A
 *     separate request prepares that backend's Workspace first, so only the
 *     load and the command are timed.
 * `runs` runs per row (default 200), p50/p95 of the HTTP round trip in ms.
 *
 *   node packages/computer/bench/worker-shell.bench.mjs [runs]
 *
 * Needs `@cloudflare/computer` built with its shell groups (npm run build).
 * Not a test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { bundleWorker, COMPATIBILITY_DATE, p50p95 } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 200);
const WARMUP = 10;
// Local workerd keeps every Worker it loaded: 200 cold loads per row in one workerd process ended in
// "Fatal JavaScript out of memory" (with 24 GB free). A fresh workerd every COLD_BATCH cold runs (untimed, on the
// same on-disk storage) keeps the process small.
const COLD_BATCH = 25;
const DIRS = 10;
const FILES_PER_DIR = 100;
const LINES_PER_FILE = 20;

const HOST = `
import { DurableObject } from "cloudflare:workers";
import { Workspace, withWorkspace, workspaceOf } from "@cloudflare/computer";
import { WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
export { WorkspaceServiceProxy } from "@cloudflare/computer";

function shell(self, loaderId) {
  return new WorkerShellBackend({
    loader: self.env.LOADER,
    workspace: { binding: "BENCH", id: self.ctx.id.toString() },
    ctx: self.ctx,
    ...(loaderId === undefined ? {} : { loaderId }),
  });
}

export class Bench extends withWorkspace(DurableObject, (self) => ({
  storage: self.ctx.storage,
  backends: [shell(self)],
})) {
  async seed(dirs, filesPerDir, linesPerFile) {
    const fs = workspaceOf(this).fs;
    let todos = 0;
    for (let d = 0; d < dirs; d++) {
      const dir = "/workspace/d" + String(d).padStart(2, "0");
      await fs.mkdir(dir, { recursive: true });
      for (let f = 0; f < filesPerDir; f++) {
        const lines = [];
        for (let l = 0; l < linesPerFile; l++) {
          const todo = f % 3 === 0 && l % 10 === 0;
          if (todo) todos++;
          lines.push(todo ? "// TODO: line " + l : "const value" + l + " = " + (d * f + l) + ";");
        }
        await fs.writeFile(dir + "/f" + String(f).padStart(3, "0") + ".js", lines.join("\\n") + "\\n");
      }
    }
    return todos;
  }

  /** A Workspace over the same storage whose only backend loads its Worker under a new id. */
  async prepareCold(run) {
    this.cold = new Workspace({ storage: this.ctx.storage, backends: [shell(this, "bench-cold-" + run)] });
    await this.cold.ready();
  }

  async run(command, cold) {
    const workspace = cold ? this.cold : workspaceOf(this);
    try {
      const result = await (await workspace.runtime.exec(command, { encoding: "utf8", cwd: "/workspace" })).result();
      if (result.exitCode !== 0) throw new Error(command + ": exit " + result.exitCode + " " + result.stderr);
      return result.stdout.split("\\n").filter(Boolean).length;
    } finally {
      if (cold) {
        this.cold = undefined;
        await workspace.close();
      }
    }
  }
}

export default {
  async fetch(request, env) {
    const { op, args } = await request.json();
    const stub = env.BENCH.get(env.BENCH.idFromName("bench"));
    return Response.json((await stub[op](...args)) ?? null);
  },
};
`;

// The object's SQLite lives on disk so the files survive a workerd restart (see COLD_BATCH).
const persist = mkdtempSync(join(tmpdir(), "worker-shell-bench-"));
const options = {
  modules: true,
  script: await bundleWorker(HOST, here),
  compatibilityDate: COMPATIBILITY_DATE,
  compatibilityFlags: ["nodejs_compat"],
  durableObjects: { BENCH: { className: "Bench", useSQLite: true } },
  resourcePersistencePath: persist,
  workerLoaders: { LOADER: {} },
};
let mf = new Miniflare(convertV4MiniflareOptions(options));

async function call(op, ...args) {
  const response = await mf.dispatchFetch("http://bench/", { method: "POST", body: JSON.stringify({ op, args }) });
  if (!response.ok) throw new Error(`${op}: ${response.status} ${await response.text()}`);
  return response.json();
}

let coldRun = 0;
async function measure(command, cold) {
  const times = [];
  let lines = 0;
  if (!cold) for (let i = 0; i < WARMUP; i++) await call("run", command, false);
  for (let i = 0; i < runs; i++) {
    if (cold && i > 0 && i % COLD_BATCH === 0) {
      await mf.dispose();
      mf = new Miniflare(convertV4MiniflareOptions(options));
      await mf.ready;
    }
    if (cold) await call("prepareCold", coldRun++);
    const start = performance.now();
    lines = await call("run", command, cold);
    times.push(performance.now() - start);
  }
  return { ...p50p95(times), lines };
}

try {
  await mf.ready;
  const todos = await call("seed", DIRS, FILES_PER_DIR, LINES_PER_FILE);
  const workloads = [
    ["true", "true", 0],
    [`grep -rn TODO . (${DIRS * FILES_PER_DIR} files)`, "grep -rn TODO .", todos],
  ];
  const rows = [];
  for (const [name, command, expected] of workloads) {
    for (const mode of ["warm", "cold"]) {
      const { p50, p95, lines } = await measure(command, mode === "cold");
      if (lines !== expected) throw new Error(`${name}: ${lines} lines of output, expected ${expected}`);
      rows.push({ name, mode, p50, p95 });
    }
  }
  const width = Math.max(...rows.map((row) => row.name.length));
  console.log(`worker-shell, ${runs} runs per row (Miniflare, Node ${process.version}), HTTP round trip in ms`);
  console.log(`| ${"command".padEnd(width)} | mode |    p50 |    p95 |`);
  console.log(`| ${"-".repeat(width)} | ---- | -----: | -----: |`);
  for (const { name, mode, p50, p95 } of rows) {
    console.log(`| ${name.padEnd(width)} | ${mode} | ${p50.toFixed(1).padStart(6)} | ${p95.toFixed(1).padStart(6)} |`);
  }
  console.log(`\nreproduce: node packages/computer/bench/worker-shell.bench.mjs ${runs}`);
} finally {
  await mf.dispose();
  rmSync(persist, { recursive: true, force: true });
}

/**
 * The benchmark runner: the same workloads on better-sqlite3 (in memory and
 * a file), on a Durable Object in workerd, and a node:fs baseline, in one
 * run. `run.mjs` bundles this file and calls `main`. Not a test: it asserts
 * nothing, it reports (see report.node.ts for the table and the targets).
 *
 * Each Node driver runs in a fresh child process (this bundle, started with
 * `node --expose-gc <bundle> <driver> <dir>`), and each driver measures memory
 * before anything else: a process that already grew and freed hundreds of
 * MiB shows no RSS growth at all, however much a later write holds.
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openNodeDatabase } from "../src/database.node.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { patternBytes } from "../test/bytes.js";
import { type BenchReport, type DriverResult, type MemoryResult, printReport } from "./report.node.js";
import { procMemory, resetPeak, startWorkerd } from "./workerd.node.js";
import {
  type ComponentsResult,
  components,
  type FindResult,
  find,
  type GrepResult,
  generatedStream,
  grep,
  MB,
  MiB,
  SIZES,
  type SmallFilesResult,
  type StreamResult,
  smallFiles,
  streaming,
  writeGenerated,
} from "./workloads.js";

export interface RunOptions {
  /** The esbuild bundle of bench-object.worker.ts. */
  workerScript: string;
  /** Where latest.json goes. */
  resultsDir: string;
  /** Drivers to run (default all): "node-memory", "node-file", "workerd". */
  only: string[];
}

const DRIVERS = ["node-memory", "node-file", "workerd"] as const;
type NodeDriver = "node-memory" | "node-file";

export async function main(options: RunOptions): Promise<void> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "dofs-bench-"));
  const wanted = (driver: string) => options.only.length === 0 || options.only.includes(driver);
  const report: BenchReport = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    sizes: SIZES,
    baseline: await fsBaseline(dir),
    drivers: {},
    totalSeconds: 0,
  };
  try {
    for (const driver of DRIVERS) {
      if (!wanted(driver)) continue;
      process.stderr.write(`bench: ${driver}…\n`);
      report.drivers[driver] =
        driver === "workerd" ? await runWorkerd(options.workerScript, dir) : await runNodeChild(driver, dir);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  report.totalSeconds = (performance.now() - started) / 1000;
  printReport(report);
  await mkdir(options.resultsDir, { recursive: true });
  await writeFile(join(options.resultsDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${join(options.resultsDir, "latest.json")}`);
}

async function runNodeChild(driver: NodeDriver, dir: string): Promise<DriverResult> {
  const self = fileURLToPath(import.meta.url);
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", self, driver, dir], {
    maxBuffer: 16 * MiB,
  });
  return JSON.parse(stdout) as DriverResult;
}

async function runNode(driver: NodeDriver, dir: string): Promise<DriverResult> {
  const open = (name: string) => openNodeDatabase(driver === "node-file" ? join(dir, `${name}.sqlite`) : ":memory:");
  // Memory first, in a fresh process, on a database of its own that is then
  // closed: the timed workloads below start from an empty store, not one
  // already holding the 320 MiB the memory runs wrote.
  const memory: MemoryResult[] = [];
  const scratch = open("memory");
  try {
    const fs = new WorkspaceFilesystem(scratch);
    await fs.mkdir("/memory");
    for (const bytes of SIZES.memoryBytes) memory.push(await nodeMemory(fs, bytes));
  } finally {
    scratch.close();
  }
  globalThis.gc?.();
  const db = open("bench");
  try {
    const fs = new WorkspaceFilesystem(db);
    return {
      smallFiles: await smallFiles(fs),
      streaming: await streaming(fs),
      grep: await grep(fs),
      find: await find(fs),
      memory,
      components: await components(fs.db),
    };
  } finally {
    db.close();
  }
}

// Started as a child by runNodeChild: run one driver, answer JSON on stdout.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [driver, dir] = process.argv.slice(2) as [NodeDriver, string];
  process.stdout.write(JSON.stringify(await runNode(driver, dir)));
}

/**
 * Peak growth over the pre-write level while streaming `bytes` into a new
 * file, sampled in the source stream's pull (so at every 64 KiB piece).
 */
async function nodeMemory(fs: WorkspaceFilesystem, bytes: number): Promise<MemoryResult> {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const peak = { ...before };
  const sample = (): void => {
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
  };
  const ms = await writeGenerated(fs, `/memory/${bytes}.bin`, bytes, sample);
  sample();
  return {
    bytes,
    ms,
    MBps: (bytes / MB / ms) * 1000,
    beforeMiB: before.rss / MiB,
    rssDeltaMiB: (peak.rss - before.rss) / MiB,
    arrayBuffersDeltaMiB: (peak.arrayBuffers - before.arrayBuffers) / MiB,
    heapUsedDeltaMiB: (peak.heapUsed - before.heapUsed) / MiB,
  };
}

async function runWorkerd(workerScript: string, dir: string): Promise<DriverResult> {
  const workerd = await startWorkerd(workerScript, dir);
  try {
    const memory: MemoryResult[] = [];
    for (const bytes of SIZES.memoryBytes) {
      const before = procMemory(workerd.pid);
      const reset = resetPeak(workerd.pid);
      // Also poll from here, in case VmHWM could not be reset.
      let polled = before.rssMiB;
      const timer = setInterval(() => {
        polled = Math.max(polled, procMemory(workerd.pid).rssMiB);
      }, 10);
      const { ms } = await workerd.call<{ ms: number }>(`write?bytes=${bytes}`).finally(() => clearInterval(timer));
      const after = procMemory(workerd.pid);
      const peak = reset ? Math.max(after.hwmMiB, polled) : polled;
      memory.push({
        bytes,
        ms,
        MBps: (bytes / MB / ms) * 1000,
        beforeMiB: before.rssMiB,
        rssDeltaMiB: peak - before.rssMiB,
      });
    }
    return {
      smallFiles: await workerd.call<SmallFilesResult>("smallFiles"),
      streaming: await workerd.call<StreamResult>("streaming"),
      grep: await workerd.call<GrepResult>("grep"),
      find: await workerd.call<FindResult>("find"),
      memory,
      components: await workerd.call<ComponentsResult>("components"),
    };
  } finally {
    await workerd.dispose();
  }
}

/** The same 64 MiB (and 5,000 × 1 KiB) through plain node:fs in the tmp dir, for ratios. */
async function fsBaseline(dir: string): Promise<BenchReport["baseline"]> {
  const bytes = SIZES.streamBytes;
  const file = join(dir, "baseline.bin");
  let start = performance.now();
  const out = createWriteStream(file);
  const reader = generatedStream(bytes).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!out.write(value)) await once(out, "drain");
  }
  out.end();
  await finished(out);
  const writeMs = performance.now() - start;

  start = performance.now();
  let read = 0;
  for await (const piece of createReadStream(file)) read += (piece as Buffer).byteLength;
  const readMs = performance.now() - start;
  if (read !== bytes) throw new Error(`baseline read ${read} bytes of ${bytes}`);
  await rm(file);

  await fsSmallPairs(join(dir, "warmup"), SIZES.smallFiles / 10);
  const smallMs = await fsSmallPairs(join(dir, "small"), SIZES.smallFiles);

  return {
    writeMBps: (bytes / MB / writeMs) * 1000,
    readMBps: (bytes / MB / readMs) * 1000,
    smallPairsPerSecond: (SIZES.smallFiles / smallMs) * 1000,
  };
}

/** `count` 1 KiB files written then read back with fs.promises, spread like the dofs run; returns ms. */
async function fsSmallPairs(root: string, count: number): Promise<number> {
  const { smallDirs, smallBytes } = SIZES;
  for (let d = 0; d < smallDirs; d++) await mkdir(join(root, `d${d}`), { recursive: true });
  const base = patternBytes(smallBytes, 7);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const path = join(root, `d${i % smallDirs}`, `f${i}.bin`);
    await writeFile(path, base);
    await readFile(path);
  }
  const ms = performance.now() - start;
  await rm(root, { recursive: true });
  return ms;
}

/**
 * The sync benchmark's runner (`sync.bench.mjs` bundles and calls `main`).
 * Not a test: it checks that each transfer arrived whole, then reports.
 *
 * Two pairs, each a driver (the Durable Object's role) and a peer (computerd's
 * role, a ws server in its own Node process): Node⇄Node, where the driver is a
 * second Node process on better-sqlite3, and DO⇄Node, where the driver is a
 * Durable Object in Miniflare's workerd. Every phase starts fresh Node
 * processes (the databases are files and outlive them), so each side's peak
 * RSS belongs to that phase; workerd's peak is reset through /proc instead.
 *
 * The pulls read from workspaces the peer wrote once (untimed); the pushes go
 * to an empty peer workspace, the shape of a container restart.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { generatedStream } from "../test/generated.js";
import { bundleSyncObject, type SyncObjectHost, startSyncObject } from "../test/sync-object.node.js";
import type { SideOp, StepResult, Summary } from "../test/sync-ops.js";
import { type Child, type PhaseMemory, procMemory, resetPeak, spawnChild } from "./process.node.js";
import type { WireCount } from "./sync-peer.node.js";
import { MB, type PairResult, type PhaseResult, printReport, SIZES, type SyncBenchReport } from "./sync-report.node.js";

export interface RunOptions {
  /** `test/sync-object.worker.ts`, bundled here into `cacheDir`. */
  workerEntry: string;
  cacheDir: string;
  /** The bundles of sync-peer.node.ts and sync-driver.node.ts. */
  peerScript: string;
  driverScript: string;
  resultsDir: string;
  /** Pairs to run (default both): "node", "workerd". */
  only: string[];
}

const ROOT = "/workspace";
const LARGE = `${ROOT}/large.bin`;

/** One driving side for the length of a phase. */
interface Driver {
  run<T = unknown>(name: string, op: SideOp): Promise<T>;
  resetMemory(): Promise<void>;
  memory(): Promise<PhaseMemory>;
  close(): Promise<void>;
}

interface Peer {
  child: Child;
  url(name: string): string;
  run<T = unknown>(name: string, op: SideOp): Promise<T>;
}

export async function main(options: RunOptions): Promise<void> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "rpc-sync-bench-"));
  const wanted = (pair: string) => options.only.length === 0 || options.only.includes(pair);
  try {
    const baseline = await nodeFsBaseline(join(dir, "baseline"));
    console.log(`node:fs baseline: ${JSON.stringify(baseline)}`);

    const peer = await startPeer(options.peerScript, dir);
    let t = performance.now();
    await peer.run("src-small", {
      op: "writeSmall",
      root: `${ROOT}/small`,
      count: SIZES.smallFiles,
      dirs: SIZES.smallDirs,
    });
    const peerSmallMs = performance.now() - t;
    t = performance.now();
    await peer.run("src-large", { op: "writeGenerated", path: LARGE, bytes: SIZES.largeBytes });
    const peerLargeMs = performance.now() - t;
    await peer.child.stop();
    console.log(`peer setup: 10k files ${peerSmallMs.toFixed(0)} ms, 256 MiB ${peerLargeMs.toFixed(0)} ms`);

    const report: SyncBenchReport = {
      date: new Date().toISOString(),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      sizes: SIZES,
      baseline,
      setup: { peerSmallMs, peerLargeMs },
      pairs: {},
      totalSeconds: 0,
    };

    if (wanted("node")) {
      report.pairs.node = await runPair(
        "node",
        "two Node processes (better-sqlite3 files), ws on 127.0.0.1",
        async () => nodeDriver(await spawnChild(options.driverScript, [dir])),
        options,
        dir,
      );
    }
    if (wanted("workerd")) {
      const script = await bundleSyncObject(options.cacheDir, options.workerEntry);
      const host = await startSyncObject(script, join(dir, "durable-objects"));
      try {
        report.pairs.workerd = await runPair(
          "workerd",
          "Durable Object in Miniflare's workerd (SQLite on disk) dialling a Node process over ws on 127.0.0.1",
          async () => workerdDriver(host),
          options,
          dir,
        );
      } finally {
        await host.dispose();
      }
    }
    report.totalSeconds = (performance.now() - started) / 1000;
    printReport(report);
    await mkdir(options.resultsDir, { recursive: true });
    await writeFile(join(options.resultsDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwrote ${join(options.resultsDir, "latest.json")}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runPair(
  kind: "node" | "workerd",
  shape: string,
  openDriver: () => Promise<Driver>,
  options: RunOptions,
  dir: string,
): Promise<PairResult> {
  const result: PairResult = { shape, phases: {} };
  const small = `${kind}-small`;
  const large = `${kind}-large`;
  const log = (name: string, phase: PhaseResult) =>
    console.log(
      `${kind} ${name}: ${phase.ms.toFixed(0)} ms, ${phase.entries} entries, rate ${phase.rate?.toFixed(0) ?? "-"}, ` +
        `wire ${phase.wire.tcpIn + phase.wire.tcpOut} B, peak MiB ${phase.memory.driver.peakMiB.toFixed(0)}/${phase.memory.peer.peakMiB.toFixed(0)}`,
    );

  /** Runs `body` with fresh processes; the step it returns is what is timed. */
  const phase = async (
    name: keyof PairResult["phases"],
    prepare: (driver: Driver, peer: Peer) => Promise<void>,
    step: (driver: Driver, peer: Peer) => Promise<number>,
    check: (driver: Driver, peer: Peer) => Promise<void>,
    rate: (ms: number) => number | undefined,
  ): Promise<void> => {
    const peer = await startPeer(options.peerScript, dir);
    const driver = await openDriver();
    try {
      await prepare(driver, peer);
      await driver.resetMemory();
      await peer.child.call({ kind: "memory-reset" });
      const before = await peer.child.call<WireCount>({ kind: "wire" });
      const started = performance.now();
      const entries = await step(driver, peer);
      const ms = performance.now() - started;
      const after = await peer.child.call<WireCount>({ kind: "wire" });
      const memory = { driver: await driver.memory(), peer: await peer.child.call<PhaseMemory>({ kind: "memory" }) };
      const wire = Object.fromEntries(
        Object.entries(after).map(([key, value]) => [key, value - before[key as keyof WireCount]]),
      ) as unknown as WireCount;
      await check(driver, peer);
      result.phases[name] = { ms, entries, rate: rate(ms), wire, memory };
      log(name, result.phases[name] as PhaseResult);
    } finally {
      await driver.close();
      await peer.child.stop();
    }
  };

  const sync = async (driver: Driver, name: string, step: StepResult["step"]) =>
    driver.run<StepResult>(name, { op: "sync", step });
  const pull = async (driver: Driver, name: string) => (await sync(driver, name, "pull")).pulled ?? 0;
  const push = async (driver: Driver, name: string) => (await sync(driver, name, "push")).pushed ?? 0;
  const connect = async (driver: Driver, name: string, peer: Peer, remote: string) => {
    await driver.run(name, { op: "connect", url: peer.url(remote) });
    await sync(driver, name, "reconcile");
  };
  const expectSummary = async (where: string, read: Promise<Summary>, files: number, bytes: number) => {
    const summary = await read;
    if (summary.files !== files || summary.bytes !== bytes) {
      throw new Error(`${kind}: ${where} holds ${JSON.stringify(summary)}, expected ${files} files, ${bytes} bytes`);
    }
  };
  const oneLargeFile = (where: string, read: Promise<Summary>) => expectSummary(where, read, 1, SIZES.largeBytes);
  const smallTotal = SIZES.smallFiles * SIZES.smallBytes;
  const perFile = (ms: number) => (SIZES.smallFiles / ms) * 1000;
  const perMB = (ms: number) => (SIZES.largeBytes / MB / ms) * 1000;

  await phase(
    "pullSmall",
    (driver, peer) => connect(driver, small, peer, "src-small"),
    (driver) => pull(driver, small),
    (driver) =>
      expectSummary("the driver", driver.run(small, { op: "summary", root: ROOT }), SIZES.smallFiles, smallTotal),
    perFile,
  );
  await phase(
    "pushSmall",
    (driver, peer) => connect(driver, small, peer, `${small}-out`),
    (driver) => push(driver, small),
    (_, peer) =>
      expectSummary("the peer", peer.run(`${small}-out`, { op: "summary", root: ROOT }), SIZES.smallFiles, smallTotal),
    perFile,
  );
  await phase(
    "pullLarge",
    (driver, peer) => connect(driver, large, peer, "src-large"),
    (driver) => pull(driver, large),
    (driver) => oneLargeFile("the driver", driver.run(large, { op: "summary", root: ROOT })),
    perMB,
  );
  await phase(
    "pushLarge",
    (driver, peer) => connect(driver, large, peer, `${large}-out`),
    (driver) => push(driver, large),
    (_, peer) => oneLargeFile("the peer", peer.run(`${large}-out`, { op: "summary", root: ROOT })),
    perMB,
  );
  await phase(
    "editPush",
    async (driver, peer) => {
      const started = performance.now();
      await driver.run(large, { op: "writeGenerated", path: LARGE, bytes: SIZES.largeBytes, flips: [SIZES.pushFlip] });
      result.rewriteMs = performance.now() - started;
      await connect(driver, large, peer, `${large}-out`);
    },
    (driver) => push(driver, large),
    (_, peer) => oneLargeFile("the peer", peer.run(`${large}-out`, { op: "summary", root: ROOT })),
    () => undefined,
  );
  await phase(
    "editPull",
    async (driver, peer) => {
      // The peer edits the copy it holds (the driver's edit plus one more byte), so the
      // driver lacks one chunk. The pull also carries the echo of the driver's own pushes,
      // whose chunks it has: entries only.
      const flips = [SIZES.pushFlip, SIZES.pullFlip];
      await peer.run(`${large}-out`, { op: "writeGenerated", path: LARGE, bytes: SIZES.largeBytes, flips });
      await connect(driver, large, peer, `${large}-out`);
    },
    (driver) => pull(driver, large),
    (driver) => oneLargeFile("the driver", driver.run(large, { op: "summary", root: ROOT })),
    () => undefined,
  );
  return result;
}

async function startPeer(script: string, dir: string): Promise<Peer> {
  const child = await spawnChild(script, [dir]);
  return {
    child,
    url: (name) => `ws://127.0.0.1:${child.info.port}/api/${name}`,
    run: (name, op) => child.call({ kind: "op", name, op }),
  };
}

function nodeDriver(child: Child): Driver {
  return {
    run: (name, op) => child.call({ kind: "op", name, op }),
    resetMemory: () => child.call({ kind: "memory-reset" }),
    memory: () => child.call<PhaseMemory>({ kind: "memory" }),
    close: () => child.stop(),
  };
}

function workerdDriver(host: SyncObjectHost): Driver {
  const { pid } = host;
  let startMiB = Number.NaN;
  return {
    run: (name, op) => host.run(name, op),
    async resetMemory() {
      if (pid === undefined) return;
      resetPeak(pid);
      startMiB = procMemory(pid).rssMiB;
    },
    async memory() {
      return { startMiB, peakMiB: pid === undefined ? Number.NaN : procMemory(pid).peakMiB };
    },
    async close() {},
  };
}

/** The same data with plain node:fs in a tmp dir: 10,000 × 1 KiB files written and read, 256 MiB written and read. */
async function nodeFsBaseline(dir: string): Promise<SyncBenchReport["baseline"]> {
  for (let d = 0; d < SIZES.smallDirs; d++) await mkdir(join(dir, `d${d}`), { recursive: true });
  const base = Buffer.alloc(SIZES.smallBytes, 0x61);
  let started = performance.now();
  for (let i = 0; i < SIZES.smallFiles; i++) {
    const bytes = Buffer.from(base);
    bytes.writeUInt32BE(i, 0);
    await writeFile(join(dir, `d${i % SIZES.smallDirs}`, `f${i}.bin`), bytes);
  }
  const smallWriteMs = performance.now() - started;
  started = performance.now();
  for (let i = 0; i < SIZES.smallFiles; i++) await readFile(join(dir, `d${i % SIZES.smallDirs}`, `f${i}.bin`));
  const smallReadMs = performance.now() - started;

  const large = join(dir, "large.bin");
  started = performance.now();
  const out = createWriteStream(large);
  for await (const piece of generatedStream(SIZES.largeBytes) as unknown as AsyncIterable<Uint8Array>) {
    if (!out.write(piece)) await once(out, "drain");
  }
  out.end();
  await finished(out);
  const largeWriteMs = performance.now() - started;
  started = performance.now();
  for await (const _ of createReadStream(large, { highWaterMark: 64 * 1024 }));
  const largeReadMs = performance.now() - started;
  await rm(dir, { recursive: true, force: true });
  return {
    smallWritePerSecond: (SIZES.smallFiles / smallWriteMs) * 1000,
    smallReadPerSecond: (SIZES.smallFiles / smallReadMs) * 1000,
    largeWriteMBps: (SIZES.largeBytes / MB / largeWriteMs) * 1000,
    largeReadMBps: (SIZES.largeBytes / MB / largeReadMs) * 1000,
  };
}

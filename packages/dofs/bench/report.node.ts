/** The benchmark's result shape, its printed table and the targets it is held to. */
import type { ComponentsResult, FindResult, GrepResult, SIZES, SmallFilesResult, StreamResult } from "./workloads.js";

export interface MemoryResult {
  bytes: number;
  ms: number;
  MBps: number;
  /** Resident set before the write, MiB. */
  beforeMiB: number;
  /** Peak resident set during the write minus `beforeMiB` (workerd: VmHWM, reset before the write). */
  rssDeltaMiB: number;
  /** Node only: peak growth of memory held by ArrayBuffers / the JS heap. */
  arrayBuffersDeltaMiB?: number;
  heapUsedDeltaMiB?: number;
}

export interface DriverResult {
  smallFiles: SmallFilesResult;
  streaming: StreamResult;
  grep: GrepResult;
  find: FindResult;
  /** One entry per size in SIZES.memoryBytes, ascending. */
  memory: MemoryResult[];
  components: ComponentsResult;
}

export interface BenchReport {
  date: string;
  node: string;
  platform: string;
  sizes: typeof SIZES;
  baseline: { writeMBps: number; readMBps: number; smallPairsPerSecond: number };
  drivers: Partial<Record<"node-memory" | "node-file" | "workerd", DriverResult>>;
  totalSeconds: number;
}

const TARGETS = { smallPairsPerSecond: 5_000, writeMBps: 100, memoryBoundMiB: 48 };

const fixed = (value: number, digits = 0): string =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (value: number, base: number): string => `${fixed(value)} (${fixed(value / base, 2)}x)`;

export function printReport(report: BenchReport): void {
  const names = Object.keys(report.drivers) as (keyof BenchReport["drivers"])[];
  const results = names.map((name) => report.drivers[name] as DriverResult);
  const { baseline } = report;
  const row = (label: string, cell: (r: DriverResult) => string, base = ""): string[] => [
    label,
    ...results.map(cell),
    base,
  ];
  const small = results[0]?.memory[0]?.bytes ?? 0;
  const large = results[0]?.memory.at(-1)?.bytes ?? 0;
  const memoryCell = (r: DriverResult, at: number): string => {
    const m = r.memory[at];
    if (!m) return "";
    const extra = m.arrayBuffersDeltaMiB === undefined ? "" : ` / ${fixed(m.arrayBuffersDeltaMiB, 1)}`;
    return `${fixed(m.rssDeltaMiB, 1)}${extra}`;
  };
  const grepBytes = results[0]?.grep.bytes ?? 0;
  const findEntries = results[0]?.find.entries ?? 0;

  console.log(
    `\ndofs bench · ${report.date} · Node ${report.node} · ${report.platform} · ${fixed(report.totalSeconds, 1)} s` +
      "\nMB = 10^6 bytes; (Nx) = ratio to the node:fs baseline in the same run\n",
  );
  printTable([
    ["metric", ...names.map(label), "node:fs baseline"],
    row(
      "1 KiB write+read pairs/s",
      (r) => ratio(r.smallFiles.pairsPerSecond, baseline.smallPairsPerSecond),
      fixed(baseline.smallPairsPerSecond),
    ),
    row("  write µs / read µs each", (r) => `${fixed(r.smallFiles.writeUsEach)} / ${fixed(r.smallFiles.readUsEach)}`),
    row("64 MiB stream write MB/s", (r) => ratio(r.streaming.writeMBps, baseline.writeMBps), fixed(baseline.writeMBps)),
    row("64 MiB stream read MB/s", (r) => ratio(r.streaming.readMBps, baseline.readMBps), fixed(baseline.readMBps)),
    row(`grep ${fixed(grepBytes / 1e6, 1)} MB literal ms (MB/s)`, (r) =>
      msRate(r.grep.literal.ms, r.grep.literal.MBps),
    ),
    row("grep regex -i ms (MB/s)", (r) => msRate(r.grep.regexIgnoreCase.ms, r.grep.regexIgnoreCase.MBps)),
    row(`find ${fixed(findEntries)} entries ms (entries/s)`, (r) => msRate(r.find.all.ms, r.find.all.entriesPerSecond)),
    row("find glob **/f*7.txt ms (entries/s)", (r) => msRate(r.find.glob.ms, r.find.glob.entriesPerSecond)),
    row("rss before the memory runs, MiB", (r) => fixed(r.memory[0]?.beforeMiB ?? 0)),
    row(`peak Δ MiB writing ${mib(small)} (rss / arrayBuffers)`, (r) => memoryCell(r, 0)),
    row(`peak Δ MiB writing ${mib(large)} (rss / arrayBuffers)`, (r) => memoryCell(r, r.memory.length - 1)),
    row(`  write MB/s during ${mib(large)} run`, (r) => fixed(r.memory.at(-1)?.MBps ?? 0)),
  ]);

  console.log("\nWhere a 64 MiB streaming write goes (each part timed alone, ms):\n");
  printTable([
    ["component", ...names.map(label)],
    ["cut stream into 512 KiB windows", ...results.map((r) => fixed(r.components.cutStreamMs))],
    [`sha256 ${results[0]?.components.chunks ?? 0} chunks`, ...results.map((r) => fixed(r.components.sha256ChunksMs))],
    ["stageBlob (1 tx per chunk)", ...results.map((r) => fixed(r.components.stageBlobMs))],
    ["readBlob", ...results.map((r) => fixed(r.components.readBlobMs))],
    ["sha256 of 1 KiB, µs each (2 per small write)", ...results.map((r) => fixed(r.components.sha256SmallUs, 1))],
  ]);

  console.log("\nTargets:");
  for (const [name, r] of names.map((n, i) => [n, results[i] as DriverResult] as const)) {
    const last = r.memory.at(-1) as MemoryResult;
    const first = r.memory[0] as MemoryResult;
    // An in-memory database holds the file itself in RSS, so only buffer growth says anything there.
    const grew =
      name === "node-memory" ? (m: MemoryResult) => m.arrayBuffersDeltaMiB ?? 0 : (m: MemoryResult) => m.rssDeltaMiB;
    const flat = grew(last) <= TARGETS.memoryBoundMiB && grew(last) - grew(first) <= 16;
    const checks = [
      name === "workerd"
        ? undefined
        : mark(r.smallFiles.pairsPerSecond >= TARGETS.smallPairsPerSecond, "≥5,000 pairs/s"),
      mark(r.streaming.writeMBps >= TARGETS.writeMBps, "stream write ≥100 MB/s"),
      mark(
        flat,
        `memory flat (${mib(large)} peak Δ ${fixed(grew(last), 1)} MiB vs ${fixed(grew(first), 1)} at ${mib(small)})`,
      ),
    ];
    console.log(`  ${label(name).padEnd(14)} ${checks.filter(Boolean).join("  ")}`);
  }
}

function label(driver: string): string {
  return { "node-memory": "node :memory:", "node-file": "node file", workerd: "workerd DO" }[driver] ?? driver;
}

function mib(bytes: number): string {
  return `${bytes / 2 ** 20} MiB`;
}

function msRate(ms: number, rate: number): string {
  return `${fixed(ms, ms < 10 ? 1 : 0)} (${fixed(rate)})`;
}

function mark(ok: boolean, text: string): string {
  return `${ok ? "✓" : "✗"} ${text}`;
}

function printTable(rows: string[][]): void {
  const widths = (rows[0] as string[]).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  for (const [i, r] of rows.entries()) {
    console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

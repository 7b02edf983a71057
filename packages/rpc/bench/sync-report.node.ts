/** The sync benchmark's result shape, its printed table and the targets it is held to. */
import type { PhaseMemory } from "./process.node.js";
import type { WireCount } from "./sync-peer.node.js";

export const MB = 1e6;
export const MiB = 1 << 20;
export const CHUNK = 512 * 1024;

export const SIZES = {
  smallFiles: 10_000,
  smallDirs: 100,
  smallBytes: 1024,
  largeBytes: 256 * MiB,
  /** File offsets inverted by the one-byte edits: the driver's (push) and then the peer's (pull). */
  pushFlip: 100 * MiB + 12_345,
  pullFlip: 200 * MiB + 777,
} as const;

export const TARGETS = { filesPerSecond: 5_000, MBps: 100 };

export interface PhaseResult {
  ms: number;
  /** Entries the step moved (pushed, or applied by a pull). */
  entries: number;
  /** files/s for the small-file phases, MB/s (10^6 bytes) for the 256 MiB ones. */
  rate?: number;
  wire: WireCount;
  memory: { driver: PhaseMemory; peer: PhaseMemory };
}

export type PhaseName = "pullSmall" | "pushSmall" | "pullLarge" | "pushLarge" | "editPush" | "editPull";
export const PHASES: PhaseName[] = ["pullSmall", "pushSmall", "pullLarge", "pushLarge", "editPush", "editPull"];

export interface PairResult {
  /** How the two sides ran. */
  shape: string;
  phases: Partial<Record<PhaseName, PhaseResult>>;
  /** Untimed setup: the driver rewriting the 256 MiB file for the edit, ms. */
  rewriteMs?: number;
}

export interface SyncBenchReport {
  date: string;
  node: string;
  platform: string;
  cpus: number;
  sizes: typeof SIZES;
  baseline: { smallWritePerSecond: number; smallReadPerSecond: number; largeWriteMBps: number; largeReadMBps: number };
  setup: { peerSmallMs: number; peerLargeMs: number };
  pairs: Partial<Record<"node" | "workerd", PairResult>>;
  totalSeconds: number;
}

const fixed = (value: number | undefined, digits = 0): string =>
  value === undefined || Number.isNaN(value)
    ? "-"
    : value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function printReport(report: SyncBenchReport): void {
  const { baseline } = report;
  const pairs = (["node", "workerd"] as const).filter((name) => report.pairs[name]);
  const header = ["", ...pairs.map((name) => (name === "node" ? "Node⇄Node" : "DO⇄Node")), "node:fs baseline"];
  const rows: string[][] = [];
  const phase = (name: "node" | "workerd", which: PhaseName) => report.pairs[name]?.phases[which];
  const rateRow = (label: string, which: PhaseName, base: number, baseLabel: string) =>
    rows.push([
      label,
      ...pairs.map((name) => {
        const rate = phase(name, which)?.rate;
        return rate === undefined ? "-" : `${fixed(rate)} (${fixed(rate / base, 2)}x)`;
      }),
      `${fixed(base)} ${baseLabel}`,
    ]);
  rateRow("10k × 1 KiB push, files/s", "pushSmall", baseline.smallWritePerSecond, "write");
  rateRow("10k × 1 KiB pull, files/s", "pullSmall", baseline.smallWritePerSecond, "write");
  rateRow("256 MiB push, MB/s", "pushLarge", baseline.largeWriteMBps, "write");
  rateRow("256 MiB pull, MB/s", "pullLarge", baseline.largeWriteMBps, "write");
  const wireRow = (label: string, which: PhaseName) =>
    rows.push([
      label,
      ...pairs.map((name) => {
        const result = phase(name, which);
        if (!result) return "-";
        const tcp = result.wire.tcpIn + result.wire.tcpOut;
        return `${fixed(tcp / 1024)} KiB (${fixed(tcp / CHUNK, 2)} chunk)`;
      }),
      "",
    ]);
  wireRow("1-byte edit push, wire", "editPush");
  wireRow("1-byte edit pull, wire", "editPull");
  const perByte = (label: string, which: PhaseName, bytes: number) =>
    rows.push([
      label,
      ...pairs.map((name) => {
        const result = phase(name, which);
        return result ? fixed((result.wire.tcpIn + result.wire.tcpOut) / bytes, 2) : "-";
      }),
      "",
    ]);
  perByte("256 MiB push, wire bytes / byte", "pushLarge", SIZES.largeBytes);
  perByte("10k push, wire bytes / file", "pushSmall", SIZES.smallFiles);
  for (const which of PHASES) {
    rows.push([
      `peak RSS ${which}, MiB drv / peer`,
      ...pairs.map((name) => {
        const memory = phase(name, which)?.memory;
        if (!memory) return "-";
        const cell = (m: PhaseMemory) => `${fixed(m.peakMiB)} (${fixed(Math.max(0, m.peakMiB - m.startMiB))})`;
        return `${cell(memory.driver)} / ${cell(memory.peer)}`;
      }),
      "",
    ]);
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  console.log(
    `\nsync bench: ${report.node}, ${report.platform}, ${report.cpus} cpus, ${fixed(report.totalSeconds, 1)} s`,
  );
  console.log(
    `setup on the peer (untimed): 10k files ${fixed(report.setup.peerSmallMs)} ms, 256 MiB ${fixed(report.setup.peerLargeMs)} ms`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(
    "ratios: sync rate / node:fs write rate. wire: TCP bytes both ways on the peer's sockets. " +
      "peak RSS: VmHWM during the phase (growth over its start); Node ArrayBuffer peaks are in latest.json",
  );
  const node = report.pairs.node?.phases;
  if (node) {
    const misses = [
      ...(["pushSmall", "pullSmall"] as const).filter((p) => (node[p]?.rate ?? 0) < TARGETS.filesPerSecond),
      ...(["pushLarge", "pullLarge"] as const).filter((p) => (node[p]?.rate ?? 0) < TARGETS.MBps),
    ];
    console.log(
      misses.length === 0
        ? `Node⇄Node targets met (≥ ${TARGETS.filesPerSecond} files/s, ≥ ${TARGETS.MBps} MB/s)`
        : `Node⇄Node below target (≥ ${TARGETS.filesPerSecond} files/s, ≥ ${TARGETS.MBps} MB/s): ${misses.join(", ")}`,
    );
  }
}

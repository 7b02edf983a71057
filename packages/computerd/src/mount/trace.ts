/**
 * COMPUTERD_FUSE_TRACE=summary: per-op counts, errors and time, written on
 * SIGUSR2 and at unmount (to COMPUTERD_FUSE_TRACE_FILE, else the log).
 */
import { appendFileSync } from "node:fs";
import type { Logger } from "../log/logger.js";

interface OpStats {
  count: number;
  errors: number;
  totalMs: number;
  maxMs: number;
}

export class FuseTrace {
  readonly #ops = new Map<string, OpStats>();
  readonly #file: string | undefined;
  readonly #log: Logger;

  constructor(file: string | undefined, log: Logger) {
    this.#file = file;
    this.#log = log;
  }

  install(): void {
    process.on("SIGUSR2", () => this.report());
  }

  record(op: string, ms: number, errno: number): void {
    let stats = this.#ops.get(op);
    if (stats === undefined) {
      stats = { count: 0, errors: 0, totalMs: 0, maxMs: 0 };
      this.#ops.set(op, stats);
    }
    stats.count++;
    if (errno !== 0) stats.errors++;
    stats.totalMs += ms;
    stats.maxMs = Math.max(stats.maxMs, ms);
  }

  report(): void {
    const lines = [...this.#ops]
      .sort((a, b) => b[1].totalMs - a[1].totalMs)
      .map(
        ([op, s]) =>
          `${op} count=${s.count} errors=${s.errors} total_ms=${s.totalMs.toFixed(1)} avg_us=${((s.totalMs * 1000) / s.count).toFixed(0)} max_ms=${s.maxMs.toFixed(1)}`,
      );
    const text = `fuse trace summary\n${lines.join("\n")}\n`;
    if (this.#file !== undefined) appendFileSync(this.#file, text);
    else this.#log.info(text.trimEnd());
  }
}

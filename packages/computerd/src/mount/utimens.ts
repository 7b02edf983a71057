/**
 * fuse-native 2.2.6 hands `utimens` the access time twice (its C glue copies
 * `tv[0]` into both arguments), so the mtime the caller asked for never
 * reaches JavaScript. The caller is still blocked inside utimensat(2) while
 * we answer, so its arguments can be read back: /proc/<pid>/syscall names the
 * syscall and its argument registers, and /proc/<pid>/mem holds the two
 * timespecs. As root (computerd always is) both are readable. When no caller
 * can be found (another kernel, a non-Linux host) the value fuse-native gave
 * is used, which is right whenever atime and mtime are the same (`touch`,
 * `touch -d`).
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

/** utimensat(2) on the two architectures the image targets. */
const UTIMENSAT: Partial<Record<string, number>> = { x64: 280, arm64: 88 };
/** `tv_nsec` values meaning "now" and "leave alone" (Linux). */
const UTIME_NOW = (1 << 30) - 1;
const UTIME_OMIT = (1 << 30) - 2;

export type TimeRequest = number | "now" | "omit";

export interface CallerTimes {
  atime: TimeRequest;
  mtime: TimeRequest;
}

/**
 * The times of the utimensat(2) call in flight whose atime matches what
 * fuse-native reported (in ms; "now" and "omit" arrive as ~1073 ms).
 */
export function findCallerTimes(reportedAtimeMs: number): CallerTimes | undefined {
  const syscall = UTIMENSAT[process.arch];
  if (syscall === undefined || process.platform !== "linux") return undefined;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return undefined;
  }
  const candidates: CallerTimes[] = [];
  for (const pid of pids) {
    const times = readCall(pid, syscall);
    if (times !== undefined) candidates.push(times);
  }
  const matching = candidates.filter((times) => reportedAs(times.atime) === Math.trunc(reportedAtimeMs));
  return matching[0] ?? (candidates.length === 1 ? candidates[0] : undefined);
}

function readCall(pid: string, syscall: number): CallerTimes | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/syscall`, "utf8");
  } catch {
    return undefined;
  }
  const fields = line.trim().split(" ");
  if (Number(fields[0]) !== syscall) return undefined;
  const timesAddress = BigInt(fields[3] ?? "0");
  if (timesAddress === 0n) return { atime: "now", mtime: "now" };
  const bytes = Buffer.alloc(32);
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, "r");
    if (readSync(fd, bytes, 0, 32, timesAddress) !== 32) return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return { atime: decode(bytes, 0), mtime: decode(bytes, 16) };
}

function decode(bytes: Buffer, offset: number): TimeRequest {
  const seconds = bytes.readBigInt64LE(offset);
  const nanos = Number(bytes.readBigInt64LE(offset + 8));
  if (nanos === UTIME_NOW) return "now";
  if (nanos === UTIME_OMIT) return "omit";
  return Number(seconds) * 1000 + Math.floor(nanos / 1_000_000);
}

/** What fuse-native's C glue turns a time into: ms, with "now"/"omit" as their nanosecond markers. */
function reportedAs(time: TimeRequest): number {
  if (time === "now") return Math.trunc(UTIME_NOW / 1_000_000);
  if (time === "omit") return Math.trunc(UTIME_OMIT / 1_000_000);
  return time;
}

/** The mtime to store: the caller's, else what fuse-native reported; undefined to leave it alone. */
export function resolveMtime(reportedMs: number, now: number): number | undefined {
  const caller = findCallerTimes(reportedMs);
  if (caller !== undefined) {
    if (caller.mtime === "omit") return undefined;
    return caller.mtime === "now" ? now : caller.mtime;
  }
  // "now" and "omit" both arrive as ~1073 ms; treat that as now (what `touch` means).
  return reportedMs === reportedAs("now") ? now : reportedMs;
}

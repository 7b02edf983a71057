/**
 * Starts the bench Durable Object in Miniflare and reads the memory of the
 * workerd process that runs it from /proc (Linux only).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";

export interface Workerd {
  /** Runs one workload inside the Durable Object and returns its JSON result. */
  call<T>(workload: string): Promise<T>;
  /** The workerd process, a direct child of this one. */
  pid: number;
  dispose(): Promise<void>;
}

/**
 * `scriptPath` is the esbuild bundle of `bench-object.worker.ts`. Its storage
 * persists under `dir`, so the object's SQLite is a file as in production.
 * `useSQLite: true` is what wrangler turns a `new_sqlite_classes` migration into.
 */
export async function startWorkerd(scriptPath: string, dir: string): Promise<Workerd> {
  const before = new Set(workerdChildren());
  // Miniflare 5 takes a config-shaped form; these are the v4 options it converts.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      scriptPath,
      // Must not be newer than the pinned workerd (1.20261117.x accepts up to 2026-11-24).
      compatibilityDate: "2026-11-17",
      durableObjects: { BENCH: { className: "BenchObject", useSQLite: true } },
      resourcePersistencePath: join(dir, "durable-objects"),
    }),
  );
  await mf.ready;
  const pid = workerdChildren().find((child) => !before.has(child));
  if (pid === undefined) {
    await mf.dispose();
    throw new Error("could not find the workerd child process");
  }
  return {
    pid,
    async call<T>(workload: string): Promise<T> {
      const response = await mf.dispatchFetch(`http://bench.local/${workload}`);
      const body = await response.text();
      if (!response.ok) throw new Error(`workerd ${workload}: ${response.status} ${body}`);
      return JSON.parse(body) as T;
    },
    dispose: () => mf.dispose(),
  };
}

/** Process ids of this process's `workerd` children. */
function workerdChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`; comm may hold spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "workerd" && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

export interface ProcMemory {
  /** Resident set now, MiB. */
  rssMiB: number;
  /** Peak resident set since start or the last `resetPeak`, MiB. */
  hwmMiB: number;
}

export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMiB: kib("VmRSS") / 1024, hwmMiB: kib("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, `clear_refs` value 5); false when not permitted. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

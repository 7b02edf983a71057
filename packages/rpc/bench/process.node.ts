/**
 * The bench's process plumbing: request/reply over the IPC channel of a
 * forked child, and memory readings taken inside a process (VmHWM from
 * /proc, which sees every allocation, plus sampled ArrayBuffer bytes).
 */
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const MiB = 1 << 20;

interface Request {
  id: number;
  message: unknown;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

export interface Child {
  pid: number;
  /** What the child announced when it became ready (e.g. its port). */
  info: Record<string, unknown>;
  call<T = unknown>(message: unknown): Promise<T>;
  /** Asks the child to close its databases and exit; waits for the exit. */
  stop(): Promise<void>;
}

/** Children still running: killed when this process exits, even on a crash, so none outlives the run. */
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function spawnChild(script: string, args: string[]): Promise<Child> {
  const child: ChildProcess = fork(script, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Record<string, unknown>));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  child.on("message", (raw) => {
    const reply = raw as Reply;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
    else waiter?.resolve(reply.result);
  });
  child.on("exit", (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited with ${code}`));
    pending.clear();
  });
  return {
    pid: child.pid as number,
    info,
    call<T>(message: unknown): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, message } satisfies Request);
      });
    },
    async stop() {
      child.send({ id: -1, message: { kind: "exit" } } satisfies Request);
      await exited;
    },
  };
}

/** The child's side: announces `info`, then answers each request with `handle`; `{kind: "exit"}` runs `close` and exits. */
export function serveParent(
  info: Record<string, unknown>,
  handle: (message: { kind: string } & Record<string, unknown>) => Promise<unknown>,
  close: () => Promise<void> | void,
): void {
  process.on("message", async (raw) => {
    const { id, message } = raw as Request;
    const request = message as { kind: string } & Record<string, unknown>;
    if (request.kind === "exit") {
      await close();
      process.disconnect();
      process.exit(0);
    }
    try {
      process.send?.({ id, result: (await handle(request)) ?? null } satisfies Reply);
    } catch (error) {
      process.send?.({ id, error: String((error as Error)?.stack ?? error) } satisfies Reply);
    }
  });
  // An orphan (the runner was killed) has nothing left to serve.
  process.on("disconnect", () => process.exit(1));
  process.send?.(info);
}

export interface ProcMemory {
  /** Resident set now, MiB. */
  rssMiB: number;
  /** Peak resident set since start or the last reset, MiB. */
  peakMiB: number;
}

export function procMemory(pid: number | "self"): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, `clear_refs` value 5); false when not permitted. */
export function resetPeak(pid: number | "self"): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

export interface PhaseMemory {
  /** RSS when the phase started, MiB. */
  startMiB: number;
  /** Peak RSS during the phase (VmHWM after a reset at its start), MiB. */
  peakMiB: number;
  /** Node only: peak bytes held by ArrayBuffers (Buffers included), sampled every 10 ms, MiB. */
  arrayBuffersPeakMiB?: number;
}

/** Watches this process's memory for one phase at a time. */
export class MemoryWatch {
  #start = 0;
  #arrayBuffersPeak = 0;
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#timer = setInterval(() => this.#sample(), 10);
    this.#timer.unref();
    this.reset();
  }

  reset(): void {
    resetPeak("self");
    this.#start = procMemory("self").rssMiB;
    this.#arrayBuffersPeak = 0;
    this.#sample();
  }

  read(): PhaseMemory {
    this.#sample();
    return {
      startMiB: this.#start,
      peakMiB: procMemory("self").peakMiB,
      arrayBuffersPeakMiB: this.#arrayBuffersPeak / MiB,
    };
  }

  #sample(): void {
    this.#arrayBuffersPeak = Math.max(this.#arrayBuffersPeak, process.memoryUsage().arrayBuffers);
  }
}

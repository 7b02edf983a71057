/**
 * The exec runner: `/bin/sh -c` children with their output streamed to one
 * live subscriber and retained in the exec log (see log.ts) for replay. It
 * implements the rpc package's `RunnerLike`, so `createShellServer(runner)`
 * serves it as `WorkspaceRPC.shell`; errors carry wire codes (ENOENT,
 * EEXEC_BUSY, ELOG_TRUNCATED, EPROTOCOL, ESHUTDOWN) that survive capnweb.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants } from "node:os";
import type {
  DisposeExecRequest,
  ExecEvent,
  ExecRequest,
  GetExecRequest,
  KillExecRequest,
  RunnerHandle,
  RunnerLike,
} from "@cloudflare/computer-rpc";
import { rpcError, SIGNAL_EXIT_CODES } from "@cloudflare/computer-rpc";
import type { Database } from "@cloudflare/dofs";
import { layerEnv } from "./env.js";
import { decodeExitCode, EventKind, ExecLog, LOG_RETENTION_MS, LOG_SWEEP_INTERVAL_MS, type LogRow } from "./log.js";
import { checkExecRequest, checkId, MAX_TIMER_MS } from "./request.js";
import { type SandboxOptions, sandboxArgv } from "./sandbox.js";

export const DEFAULT_TIMEOUT_MS = 320_000;
export const KILL_GRACE_MS = 5_000;

export interface RunnerOptions {
  db: Database;
  logMaxBytes: number;
  /** The cwd when an exec names none: the mount point, or the daemon's cwd without a mount. */
  defaultCwd: string;
  /** Why `cwd` cannot be entered (missing, not a directory), or undefined when it can. Checked before spawning. */
  checkCwd: (cwd: string) => string | undefined | Promise<string | undefined>;
  /** The environment layers under the exec's own: allowlisted daemon env, COMPUTER_VAR_*, the runner's base env. */
  envLayers: Record<string, string>[];
  /** Runs before each spawn: the shim reconciles disk first, so a directory an earlier exec made passes checkCwd. */
  beforeSpawn?: () => void | Promise<void>;
  now?: () => number;
  /** 0 turns the retention sweep timer off (tests call `sweep()` themselves). */
  sweepIntervalMs?: number;
  retentionMs?: number;
  defaultTimeoutMs?: number;
  killGraceMs?: number;
  /**
   * The network each command runs in: `host` (default) the daemon's;
   * `isolated`, a fresh empty namespace per command (`unshare --net`: egress
   * `none` without a container runtime); `{ join }`, an existing namespace
   * (`nsenter --net=<join>`: the egress gateway's, see egress/namespace.ts).
   */
  network?: "host" | "isolated" | { join: string };
  /** The local container's root for each command (bwrap, see sandbox.ts); undefined runs commands on the daemon's root. */
  sandbox?: SandboxOptions;
}

type RunnerEvent = ExecEvent;

interface Subscriber {
  controller: ReadableStreamDefaultController<RunnerEvent>;
}

interface LiveExec {
  id: string;
  child: ChildProcess;
  seq: number;
  subscriber: Subscriber | undefined;
  timers: NodeJS.Timeout[];
  disposed: boolean;
}

export class Runner implements RunnerLike {
  readonly #options: RunnerOptions;
  readonly #log: ExecLog;
  readonly #live = new Map<string, LiveExec>();
  readonly #now: () => number;
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  #shutdown = false;

  constructor(options: RunnerOptions) {
    this.#options = options;
    this.#log = new ExecLog(options.db, options.logMaxBytes);
    this.#now = options.now ?? Date.now;
    const every = options.sweepIntervalMs ?? LOG_SWEEP_INTERVAL_MS;
    if (every > 0) {
      this.#sweepTimer = setInterval(() => this.sweep(), every);
      this.#sweepTimer.unref();
    }
  }

  get log(): ExecLog {
    return this.#log;
  }

  /** Live children, for /__computerd/stats. */
  get liveCount(): number {
    return this.#live.size;
  }

  async exec(request: Omit<ExecRequest, "input">): Promise<RunnerHandle> {
    checkExecRequest(request);
    await this.#options.beforeSpawn?.();
    const cwd = request.cwd ?? this.#options.defaultCwd;
    const problem = await this.#options.checkCwd(cwd);
    // Everything from here to the spawn is synchronous, so no other exec can take the id in between.
    if (this.#shutdown) throw rpcError("ESHUTDOWN", "exec", request.id);
    const id = request.id ?? randomUUID();
    if (this.#live.has(id)) throw rpcError("EEXEC_BUSY", "exec", id);
    if (problem !== undefined) return spawnFailed(id, problem);
    if (this.#log.meta(id) !== undefined) this.#log.delete(id);

    const env = layerEnv(...this.#options.envLayers, request.env);
    let child: ChildProcess;
    try {
      const [command, args] = networked(this.#options.network ?? "host", this.#argv(cwd, request.source));
      child = spawn(command, args, {
        // No `cwd` here: chdir into a FUSE mount from the daemon's own process can deadlock against its own loop.
        env,
        stdio: [request.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        // Its own process group, so a timeout or kill reaches the whole pipeline, not just the shell.
        detached: true,
      });
    } catch (error) {
      return spawnFailed(id, error instanceof Error ? error.message : String(error));
    }
    const exec: LiveExec = { id, child, seq: 0, subscriber: undefined, timers: [], disposed: false };
    this.#live.set(id, exec);
    this.#log.create(id, this.#now());
    this.#wire(exec, request);
    return { id, events: this.#subscribe(exec, []) };
  }

  async getExec(request: GetExecRequest): Promise<RunnerHandle> {
    const { id } = request ?? ({} as GetExecRequest);
    checkId(id, "getExec");
    const after = request.after ?? 0;
    const live = this.#live.get(id);
    const meta = this.#log.meta(id);
    if (meta === undefined) throw rpcError("ENOENT", "getExec", id);
    if (live !== undefined) {
      if (live.subscriber !== undefined) throw rpcError("EEXEC_BUSY", "getExec", id, "exec already has a subscriber");
      if (after === "tail") return { id, events: this.#subscribe(live, []) };
      if (meta.evicted) throw rpcError("ELOG_TRUNCATED", "getExec", id);
      return { id, events: this.#subscribe(live, this.#log.read(id, after)) };
    }
    if (after === "tail") return { id, events: closedStream([]) };
    if (meta.evicted) throw rpcError("ELOG_TRUNCATED", "getExec", id);
    return { id, events: closedStream(this.#log.read(id, after).map((row) => toEvent(id, row))) };
  }

  async killExec(request: KillExecRequest): Promise<void> {
    const { id } = request ?? ({} as KillExecRequest);
    checkId(id, "killExec");
    const signal = request.signal ?? "SIGTERM";
    if (!Object.hasOwn(constants.signals, signal)) {
      throw rpcError("EPROTOCOL", "killExec", id, `unknown signal ${signal}`);
    }
    const live = this.#live.get(id);
    if (live === undefined) {
      if (this.#log.meta(id) === undefined) throw rpcError("ENOENT", "killExec", id);
      return; // Finished: nothing to signal.
    }
    signalGroup(live.child, signal as NodeJS.Signals);
  }

  async disposeExec(request: DisposeExecRequest): Promise<void> {
    const { id } = request ?? ({} as DisposeExecRequest);
    checkId(id, "disposeExec");
    const live = this.#live.get(id);
    if (live !== undefined) {
      live.disposed = true;
      this.#live.delete(id);
      for (const timer of live.timers) clearTimeout(timer);
      signalGroup(live.child, "SIGKILL");
      const subscriber = live.subscriber;
      live.subscriber = undefined;
      subscriber?.controller.error(rpcError("ENOENT", "getExec", id, "exec was disposed"));
    }
    this.#log.delete(id);
  }

  /** Deletes finished execs older than the retention window. */
  sweep(): void {
    const cutoff = this.#now() - (this.#options.retentionMs ?? LOG_RETENTION_MS);
    for (const id of this.#log.expired(cutoff)) if (!this.#live.has(id)) this.#log.delete(id);
  }

  /** SIGKILLs every live child; later execs fail with ESHUTDOWN. */
  shutdown(): void {
    this.#shutdown = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    for (const exec of this.#live.values()) {
      for (const timer of exec.timers) clearTimeout(timer);
      signalGroup(exec.child, "SIGKILL");
    }
  }

  /**
   * `/bin/sh -c source` in `cwd`. The directory is changed by bwrap, or by a
   * `cd` on a line of its own that exits on failure: `cd X && a; b` would run
   * `b` in the daemon's directory when the cd fails.
   */
  #argv(cwd: string, source: string): string[] {
    const sandbox = this.#options.sandbox;
    if (sandbox !== undefined) return sandboxArgv(sandbox, cwd, ["/bin/sh", "-c", source]);
    return ["/bin/sh", "-c", `cd -- ${shellQuote(cwd)} || exit\n${source}`];
  }

  #wire(exec: LiveExec, request: Omit<ExecRequest, "input">): void {
    const { child } = exec;
    child.stdout?.on("data", (data: Buffer) => this.#output(exec, EventKind.Stdout, data));
    child.stderr?.on("data", (data: Buffer) => this.#output(exec, EventKind.Stderr, data));
    if (request.stdin !== undefined && child.stdin) {
      // A child that exits without reading its stdin makes the write fail with EPIPE: not an error of ours.
      child.stdin.on("error", () => {});
      child.stdin.end(typeof request.stdin === "string" ? request.stdin : Buffer.from(request.stdin));
    }
    // A timer cannot wait longer than MAX_TIMER_MS (24.8 days): a longer timeout is that long.
    const timeoutMs = Math.min(request.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMER_MS);
    if (timeoutMs > 0) {
      exec.timers.push(
        setTimeout(() => {
          signalGroup(child, "SIGTERM");
          const grace = setTimeout(() => signalGroup(child, "SIGKILL"), this.#options.killGraceMs ?? KILL_GRACE_MS);
          grace.unref();
          exec.timers.push(grace);
        }, timeoutMs),
      );
    }
    let finished = false;
    const finish = (code: number, message?: string): void => {
      if (finished) return;
      finished = true;
      if (message !== undefined) this.#output(exec, EventKind.Stderr, Buffer.from(`spawn failed: ${message}\n`));
      this.#exit(exec, code);
    };
    child.on("error", (error) => finish(-1, error.message));
    child.on("close", (code, signal) => finish(code ?? (signal ? (SIGNAL_EXIT_CODES[signal] ?? -1) : -1)));
  }

  #output(exec: LiveExec, kind: EventKind.Stdout | EventKind.Stderr, data: Buffer): void {
    if (exec.disposed) return;
    const seq = ++exec.seq;
    const value = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.#log.append(exec.id, seq, kind, value, this.#now());
    const subscriber = exec.subscriber;
    if (subscriber === undefined) return;
    subscriber.controller.enqueue({ id: exec.id, seq, name: kind === EventKind.Stdout ? "stdout" : "stderr", value });
    // Pull backpressure: stop reading the child until the subscriber asks for more (pull resumes).
    if ((subscriber.controller.desiredSize ?? 1) <= 0) pausePipes(exec.child);
  }

  #exit(exec: LiveExec, code: number): void {
    for (const timer of exec.timers) clearTimeout(timer);
    if (exec.disposed) return;
    const seq = ++exec.seq;
    this.#log.finish(exec.id, seq, code, this.#now());
    this.#live.delete(exec.id);
    const subscriber = exec.subscriber;
    exec.subscriber = undefined;
    if (subscriber !== undefined) {
      subscriber.controller.enqueue({ id: exec.id, seq, name: "exit", code });
      subscriber.controller.close();
    }
  }

  #subscribe(exec: LiveExec, replay: LogRow[]): ReadableStream<RunnerEvent> {
    let subscriber: Subscriber | undefined;
    return new ReadableStream<RunnerEvent>(
      {
        start: (controller) => {
          for (const row of replay) controller.enqueue(toEvent(exec.id, row));
          subscriber = { controller };
          exec.subscriber = subscriber;
        },
        pull: () => {
          if (exec.subscriber === subscriber) resumePipes(exec.child);
        },
        cancel: () => {
          // Detach only: the exec keeps running and logging; a later getExec can pick it up.
          if (exec.subscriber === subscriber) exec.subscriber = undefined;
          resumePipes(exec.child);
        },
      },
      { highWaterMark: 1 },
    );
  }
}

/** The command line that runs `argv` in `network`. unshare and nsenter exec it in place: pid and group stay its own. */
function networked(network: NonNullable<RunnerOptions["network"]>, argv: string[]): [string, string[]] {
  if (network === "isolated") return ["unshare", ["--net", "--", ...argv]];
  if (typeof network === "object") return ["nsenter", [`--net=${network.join}`, "--", ...argv]];
  return [argv[0] ?? "/bin/sh", argv.slice(1)];
}

/** `'` → `'\''`, the whole wrapped in single quotes: safe for any path. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function pausePipes(child: ChildProcess): void {
  child.stdout?.pause();
  child.stderr?.pause();
}

function resumePipes(child: ChildProcess): void {
  child.stdout?.resume();
  child.stderr?.resume();
}

function toEvent(id: string, row: LogRow): RunnerEvent {
  if (row.kind === EventKind.Exit) return { id, seq: row.seq, name: "exit", code: decodeExitCode(row.value) };
  return { id, seq: row.seq, name: row.kind === EventKind.Stdout ? "stdout" : "stderr", value: row.value };
}

function closedStream(events: RunnerEvent[]): ReadableStream<RunnerEvent> {
  return new ReadableStream<RunnerEvent>({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  });
}

/** A cwd that cannot be entered: stderr `spawn failed: …` and exit −1, with nothing logged (disposed at once). */
function spawnFailed(id: string, problem: string): RunnerHandle {
  const value = new TextEncoder().encode(`spawn failed: ${problem}\n`);
  return {
    id,
    events: closedStream([
      { id, seq: 1, name: "stderr", value },
      { id, seq: 2, name: "exit", code: -1 },
    ]),
  };
}

/**
 * The test backend's `shell`: computerd's Runner semantics (`docs/computerd.md`) with
 * the interpreter in place of `/bin/sh` and an in-memory log in place of the
 * exec tables. Ids, one live subscriber, replay by `after` / `"tail"`, kill
 * and dispose, signal exit codes and the spawn failure on a missing cwd all
 * behave as they do in a container, so runtime code tested against this
 * runner meets the same edge cases there.
 *
 * Differences, on purpose: there is no process, so a kill stops the script
 * before its next command (or interrupts `sleep`) and the exit event is sent
 * at once; finished logs are kept until disposed or the runner is replaced
 * instead of for 5 minutes; output is buffered in the log rather than paused
 * when nobody reads.
 */

import { rpcError, SIGNAL_EXIT_CODES } from "@cloudflare/computer-rpc";
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { BackendExec, ShellExecRequest, ShellRpcLike, WireExecEvent } from "../../src/runtime/backend.js";
import { messageOf, resolvePath } from "./builtins.js";
import { runShell } from "./interpreter.js";

/** computerd's mount point: the default cwd and `HOME`. The Workspace's push creates it; the runner never does. */
export const DEFAULT_CWD = "/workspace";
/** computerd's default; `timeoutMs: 0` turns the timeout off. */
export const DEFAULT_TIMEOUT_MS = 320_000;
/** computerd's `EXEC_LOG_MAX_BYTES` default: past it the log is evicted and replays fail with ELOG_TRUNCATED. */
export const DEFAULT_LOG_MAX_BYTES = 16 * 1024 * 1024;

export interface TestRunnerOptions {
  /** Output bytes one exec's log may hold; default `DEFAULT_LOG_MAX_BYTES`. Set it low to test ELOG_TRUNCATED. */
  logMaxBytes?: number;
  /** Applies when a request has no `timeoutMs`; default `DEFAULT_TIMEOUT_MS`. */
  defaultTimeoutMs?: number;
}

interface Subscriber {
  readonly queue: WireExecEvent[];
  wake: (() => void) | undefined;
  canceled: boolean;
}

interface ExecRecord {
  readonly id: string;
  readonly log: WireExecEvent[];
  /** Output bytes so far, against `logMaxBytes`. */
  bytes: number;
  evicted: boolean;
  seq: number;
  /** Set once the exit event is out; `undefined` while running. */
  exitCode: number | undefined;
  subscriber: Subscriber | undefined;
  readonly abort: AbortController;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const encoder = new TextEncoder();

export class TestRunner implements ShellRpcLike {
  readonly #fs: WorkspaceFilesystem;
  readonly #logMaxBytes: number;
  readonly #defaultTimeoutMs: number;
  readonly #execs = new Map<string, ExecRecord>();
  /** Settles when a script's interpreter has returned, so `settled()` can wait for stragglers after a kill. */
  readonly #running = new Set<Promise<void>>();

  constructor(fs: WorkspaceFilesystem, options: TestRunnerOptions = {}) {
    this.#fs = fs;
    this.#logMaxBytes = options.logMaxBytes ?? DEFAULT_LOG_MAX_BYTES;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async exec(request: ShellExecRequest): Promise<BackendExec> {
    if (typeof request?.source !== "string") throw new TypeError("exec source must be a string");
    const timeoutMs = request.timeoutMs ?? this.#defaultTimeoutMs;
    if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) throw new TypeError("exec timeoutMs must be >= 0");
    const id = request.id || crypto.randomUUID();
    const previous = this.#execs.get(id);
    if (previous !== undefined && previous.exitCode === undefined) throw rpcError("EEXEC_BUSY", "exec", id);
    const record: ExecRecord = {
      id,
      log: [],
      bytes: 0,
      evicted: false,
      seq: 0,
      exitCode: undefined,
      subscriber: undefined,
      abort: new AbortController(),
      timer: undefined,
    };
    // A finished record under the same id is replaced (computerd disposes it).
    this.#execs.set(id, record);
    const events = this.#subscribe(record, 0);
    const run = this.#run(record, request, timeoutMs);
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
    return { id, events };
  }

  async getExec(request: { id: string; after?: number | "tail" }): Promise<BackendExec> {
    const record = this.#execs.get(request?.id);
    if (record === undefined) throw rpcError("ENOENT", "getExec", request?.id);
    const after = request.after ?? 0;
    if (after !== "tail" && (typeof after !== "number" || Number.isNaN(after))) {
      throw new TypeError('getExec after must be a seq or "tail"');
    }
    if (record.evicted && after !== "tail") throw rpcError("ELOG_TRUNCATED", "getExec", record.id);
    if (record.exitCode === undefined && record.subscriber !== undefined) {
      throw rpcError("EEXEC_BUSY", "getExec", record.id);
    }
    return { id: record.id, events: this.#subscribe(record, after) };
  }

  async killExec(request: { id: string; signal?: string }): Promise<void> {
    const record = this.#execs.get(request?.id);
    if (record === undefined) throw rpcError("ENOENT", "killExec", request?.id);
    const signal = request.signal ?? "SIGTERM";
    if (!/^SIG[A-Z0-9]+$/.test(signal)) throw new TypeError(`unknown signal: ${signal}`);
    this.#kill(record, signal);
  }

  async disposeExec(request: { id: string }): Promise<void> {
    const record = this.#execs.get(request?.id);
    if (record === undefined) return;
    this.#kill(record, "SIGKILL");
    this.#execs.delete(record.id);
  }

  /** Kills every running execution and forgets every log: the container went away. */
  dispose(): void {
    for (const record of this.#execs.values()) this.#kill(record, "SIGKILL");
    this.#execs.clear();
  }

  /** Ids with a running execution. */
  get running(): string[] {
    return [...this.#execs.values()].filter((record) => record.exitCode === undefined).map((record) => record.id);
  }

  /** Resolves once every interpreter has returned (a killed one may still be inside an fs call). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async #run(record: ExecRecord, request: ShellExecRequest, timeoutMs: number): Promise<void> {
    const cwd = resolvePath(DEFAULT_CWD, request.cwd ?? DEFAULT_CWD);
    const stat = await this.#fs.stat(cwd).catch(() => null);
    if (stat === null || !stat.isDirectory) {
      // computerd checks the cwd against its store before spawning, answers like a failed spawn, and drops the log.
      const reason = stat === null ? "ENOENT: no such file or directory" : "ENOTDIR: not a directory";
      this.#emit(record, "stderr", encoder.encode(`spawn failed: ${reason}, cwd '${cwd}'\n`));
      this.#finish(record, -1);
      if (this.#execs.get(record.id) === record) this.#execs.delete(record.id);
      return;
    }
    if (timeoutMs > 0) record.timer = setTimeout(() => this.#kill(record, "SIGTERM"), timeoutMs);
    const stdin = request.stdin ?? new Uint8Array();
    try {
      const code = await runShell(request.source, {
        fs: this.#fs,
        cwd,
        vars: { HOME: DEFAULT_CWD, ...request.env, PWD: cwd },
        stdin: typeof stdin === "string" ? encoder.encode(stdin) : stdin,
        signal: record.abort.signal,
        write: (name, bytes) => this.#emit(record, name, bytes),
      });
      this.#finish(record, code);
    } catch (error) {
      if (record.abort.signal.aborted) return;
      // A crash of the interpreter itself: report it the way a dying shell would.
      this.#emit(record, "stderr", encoder.encode(`sh: ${messageOf(error)}\n`));
      this.#finish(record, 2);
    }
  }

  #kill(record: ExecRecord, signal: string): void {
    if (record.exitCode !== undefined) return;
    this.#finish(record, SIGNAL_EXIT_CODES[signal] ?? -1);
  }

  #emit(record: ExecRecord, name: "stdout" | "stderr", value: Uint8Array): void {
    if (record.exitCode !== undefined || value.byteLength === 0) return;
    const event: WireExecEvent = { id: record.id, seq: ++record.seq, name, value };
    record.bytes += value.byteLength;
    if (!record.evicted && record.bytes > this.#logMaxBytes) {
      // computerd deletes every row and keeps streaming live; replays are then ELOG_TRUNCATED.
      record.evicted = true;
      record.log.length = 0;
    }
    if (!record.evicted) record.log.push(event);
    this.#deliver(record, event);
  }

  #finish(record: ExecRecord, code: number): void {
    if (record.exitCode !== undefined) return;
    record.exitCode = code;
    if (record.timer !== undefined) clearTimeout(record.timer);
    const event: WireExecEvent = { id: record.id, seq: ++record.seq, name: "exit", code };
    if (!record.evicted) record.log.push(event);
    this.#deliver(record, event);
    record.abort.abort(new Error(`exec ${record.id} exited with ${code}`));
  }

  #deliver(record: ExecRecord, event: WireExecEvent): void {
    const subscriber = record.subscriber;
    if (subscriber === undefined) return;
    subscriber.queue.push(event);
    subscriber.wake?.();
  }

  /**
   * A reader of one record: the replay after `after`, then (while the exec
   * runs) live events. Only a reader of a running exec is the subscriber;
   * a replay of a finished one needs no slot, so it never makes anyone busy.
   */
  #subscribe(record: ExecRecord, after: number | "tail"): ReadableStream<WireExecEvent> {
    const subscriber: Subscriber = {
      queue: after === "tail" ? [] : record.log.filter((event) => event.seq > after),
      wake: undefined,
      canceled: false,
    };
    const live = record.exitCode === undefined;
    if (live) record.subscriber = subscriber;
    const detach = (): void => {
      subscriber.canceled = true;
      if (record.subscriber === subscriber) record.subscriber = undefined;
      subscriber.wake?.();
    };
    return new ReadableStream<WireExecEvent>(
      {
        async pull(controller) {
          for (;;) {
            if (subscriber.canceled) return;
            const event = subscriber.queue.shift();
            if (event !== undefined) {
              controller.enqueue(event);
              if (event.name === "exit") {
                detach();
                controller.close();
              }
              return;
            }
            if (!live) {
              controller.close();
              return;
            }
            await new Promise<void>((resolve) => {
              subscriber.wake = resolve;
            });
            subscriber.wake = undefined;
          }
        },
        cancel: detach,
      },
      { highWaterMark: 0 },
    );
  }
}

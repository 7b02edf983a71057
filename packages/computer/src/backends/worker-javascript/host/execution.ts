/**
 * One running execution: it loads a fresh Dynamic Worker, serves the
 * worker's host calls, journals every event as it arrives and fans events
 * out to its subscribers. It ends in exactly one of four ways — the module
 * returned or threw, it was canceled (kill, Workspace close), it timed out,
 * or the journal could not be written — and in every case the same drain
 * runs: refuse new host calls, wait for the accepted ones, then write the
 * final events. A Dynamic Worker cannot be stopped from outside, so a
 * canceled module may keep running in its isolate until it touches a
 * capability (which now fails) or finishes; nothing it does reaches the
 * workspace any more.
 */

import { rpcError } from "@cloudflare/computer-rpc";
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { RUNNER_MODULES } from "#sandbox/worker-javascript";
import type { WorkspaceArtifacts, WorkspaceGit } from "../../../contracts/capabilities.js";
import type { WorkspaceModuleFunctions } from "../../../modules/types.js";
import type { ExecEvent, ExecStatus, WorkspaceRuntimeValue } from "../../../runtime/types.js";
import {
  type HostCall,
  type HostFunction,
  type OutputFrame,
  RUNNER_ENTRYPOINT,
  RUNNER_MODULE,
  type RunOutcome,
  type RunRequest,
} from "../protocol/messages.js";
import { StdioBudget, utf8Length } from "../protocol/stdio.js";
import { ExecutionCapabilities } from "./capabilities.js";
import type { ModuleGraph } from "./graph.js";
import { HostCalls } from "./host-calls.js";
import { appendEvent, finishExecution, readEvents } from "./journal.js";
import { CallLimits } from "./limits.js";
import type { LoaderModule, LoaderWorkerCode, ResolvedOptions } from "./options.js";
import { failedStream, Subscriber } from "./subscriber.js";

export const CANCELLED_MESSAGE = "Execution cancelled.\n";
export const TIMED_OUT_MESSAGE = "JavaScript execution timed out\n";
export const CANCELLED_EXIT_CODE = 130;

interface RunnerStub {
  run(request: RunRequest, host: HostFunction): Promise<RunOutcome>;
}

type StopReason = "cancelled" | "timeout" | "journal" | "protocol";

export interface ExecutionDeps {
  db: Database;
  fs: WorkspaceFilesystem;
  backend: string;
  options: ResolvedOptions;
  now: () => number;
  git(): WorkspaceGit;
  artifacts(): WorkspaceArtifacts;
  /** The connected 0.8 host modules, by the name after `ws:`. */
  hostFunctions?: ReadonlyMap<string, WorkspaceModuleFunctions>;
  /** Called once the final events are written (or writing them failed). */
  onFinished(execution: LiveExecution): void;
}

export interface StartRequest {
  graph: ModuleGraph;
  input: string;
  env: Record<string, string>;
  stdin?: Uint8Array;
  cwd: string;
  timeoutMs: number;
}

const encoder = new TextEncoder();

export class LiveExecution {
  readonly id: string;
  readonly #deps: ExecutionDeps;
  readonly #subscribers = new Set<Subscriber>();
  readonly #budget: StdioBudget;
  readonly #limits: CallLimits;
  #seq = 0;
  #stopped: StopReason | undefined;
  #stop: ((reason: StopReason) => void) | undefined;
  readonly #stopSignal: Promise<StopReason>;
  #output: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #journalBroken = false;
  /** Settles when the execution has finished and its final events are written. */
  readonly done: Promise<void>;
  #resolveDone!: () => void;

  constructor(id: string, deps: ExecutionDeps) {
    this.id = id;
    this.#deps = deps;
    this.#budget = new StdioBudget(deps.options.maxStdioBytes);
    this.#limits = new CallLimits(deps.options, deps.now);
    this.#stopSignal = new Promise<StopReason>((resolve) => {
      this.#stop = resolve;
    });
    this.done = new Promise<void>((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** A reader from `after` (a seq, or `"tail"` for only what comes next). */
  subscribe(after: number | "tail"): ReadableStream<ExecEvent> {
    const { options, db, backend } = this.#deps;
    if (this.#subscribers.size >= options.maxSubscribers) {
      return failedStream(
        rpcError("EEXEC_BUSY", "getExec", this.id, `more than ${options.maxSubscribers} readers of one execution`),
      );
    }
    const replay = readEvents(db, backend, this.id, after === "tail" ? this.#seq : after);
    const subscriber = new Subscriber(replay, (gone) => this.#subscribers.delete(gone));
    this.#subscribers.add(subscriber);
    return subscriber.stream;
  }

  /** Cancels the execution and waits until its final events are written. */
  async cancel(): Promise<void> {
    this.#requestStop("cancelled");
    await this.done;
  }

  start(request: StartRequest): void {
    this.#run(request).catch((error: unknown) => {
      // #run handles its own failures; this only guards against a bug leaving callers waiting.
      this.#finish("failed", 1, `worker-javascript: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }

  #requestStop(reason: StopReason): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    this.#stop?.(reason);
  }

  async #run(request: StartRequest): Promise<void> {
    const { options } = this.#deps;
    const capabilities = new ExecutionCapabilities({
      fs: this.#deps.fs,
      options,
      cwd: request.cwd,
      limits: this.#limits,
      git: this.#deps.git,
      artifacts: this.#deps.artifacts,
      hostCalls: new HostCalls({
        execId: this.id,
        fs: this.#deps.fs,
        options,
        functions: this.#deps.hostFunctions ?? new Map(),
      }),
    });
    const host: HostFunction = async (call: HostCall) => {
      if (call.op === "attachOutput") return this.#consume(call.stream);
      if (call.op === "call") return capabilities.handle(call.module, call.method, call.args);
      return undefined;
    };
    const runRequest: RunRequest = {
      entry: request.graph.entry,
      input: request.input,
      env: request.env,
      cwd: request.cwd,
      maxStdioBytes: options.maxStdioBytes,
      maxResultBytes: options.maxResultBytes,
      ...(request.stdin === undefined ? {} : { stdin: request.stdin }),
    };
    type Settled = { kind: "run"; outcome: RunOutcome } | { kind: "error"; error: unknown } | { kind: "stop" };
    let running: Promise<Settled>;
    try {
      const runner = options.loader.load(this.#workerCode(request)).getEntrypoint(RUNNER_ENTRYPOINT) as RunnerStub;
      running = runner.run(runRequest, host).then(
        (outcome): Settled => ({ kind: "run", outcome }),
        (error: unknown): Settled => ({ kind: "error", error }),
      );
    } catch (error) {
      running = Promise.resolve({ kind: "error", error });
    }
    const timer = setTimeout(() => this.#requestStop("timeout"), request.timeoutMs);
    const settled = await Promise.race([running, this.#stopSignal.then((): Settled => ({ kind: "stop" }))]);
    clearTimeout(timer);
    this.#limits.close(this.#stopped === "cancelled" ? "Execution cancelled" : "execution finished");
    await this.#limits.settled();
    // Output that arrives after this point belongs to nobody.
    await this.#output?.cancel().catch(() => {});
    if (settled.kind === "stop" || this.#stopped) {
      switch (this.#stopped) {
        case "timeout":
          return this.#finish("failed", 1, TIMED_OUT_MESSAGE);
        case "journal":
          return this.#finish("failed", 1, "worker-javascript: the execution journal could not be written\n");
        case "protocol":
          return this.#finish("failed", 1, "worker-javascript: the runner sent malformed output\n");
        default:
          return this.#finish("cancelled", CANCELLED_EXIT_CODE, CANCELLED_MESSAGE);
      }
    }
    if (settled.kind === "error") {
      const message = settled.error instanceof Error ? settled.error.message : String(settled.error);
      return this.#finish("failed", 1, `JavaScript execution failed: ${message}\n`);
    }
    const outcome = settled.outcome;
    if (!outcome.ok) return this.#finish("failed", 1, `${String(outcome.error)}\n`);
    // The runner checked the result, but it shares an isolate with the module: parse it here.
    if (typeof outcome.json !== "string" || utf8Length(outcome.json) > options.maxResultBytes) {
      return this.#finish(
        "failed",
        1,
        `The module's result is larger than maxResultBytes (${options.maxResultBytes} bytes)\n`,
      );
    }
    let value: WorkspaceRuntimeValue;
    try {
      value = JSON.parse(outcome.json) as WorkspaceRuntimeValue;
    } catch {
      return this.#finish("failed", 1, "The module's result is not valid JSON\n");
    }
    return this.#finish("completed", 0, undefined, value);
  }

  #workerCode(request: StartRequest): LoaderWorkerCode {
    const { options } = this.#deps;
    const modules: Record<string, LoaderModule> = {};
    for (const [name, js] of Object.entries(RUNNER_MODULES)) modules[name] = { js };
    for (const [name, js] of Object.entries(request.graph.modules)) modules[name] = { js };
    const code: LoaderWorkerCode = {
      compatibilityDate: options.compatibilityDate,
      compatibilityFlags: [...options.compatibilityFlags],
      limits: { cpuMs: request.timeoutMs },
      mainModule: RUNNER_MODULE,
      modules,
      env: {},
    };
    if (options.egress.mode === "none") code.globalOutbound = null;
    if (options.egress.mode === "http-gateway") code.globalOutbound = options.egress.gateway;
    return code;
  }

  /** Reads the runner's NDJSON output frames until the stream ends or the execution stops. */
  async #consume(stream: ReadableStream<Uint8Array>): Promise<void> {
    if (this.#output || this.#stopped) {
      await stream.cancel().catch(() => {});
      return;
    }
    const reader = stream.getReader();
    this.#output = reader;
    const decoder = new TextDecoder();
    // A frame holds at most the whole stdio budget, JSON-escaped (≤ 6 bytes per byte), plus framing.
    const maxLine = this.#deps.options.maxStdioBytes * 6 + 64;
    let pending = "";
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        pending += decoder.decode(next.value, { stream: true });
        let newline = pending.indexOf("\n");
        while (newline >= 0) {
          this.#frame(pending.slice(0, newline));
          pending = pending.slice(newline + 1);
          newline = pending.indexOf("\n");
        }
        if (pending.length > maxLine) throw new Error("output frame too long");
      }
    } catch {
      if (!this.#stopped) this.#requestStop("protocol");
    }
  }

  #frame(line: string): void {
    if (this.#stopped || line === "") return;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      throw new Error("malformed output frame");
    }
    const [name, text] = frame as OutputFrame;
    if (!Array.isArray(frame) || (name !== "stdout" && name !== "stderr") || typeof text !== "string") {
      throw new Error("malformed output frame");
    }
    const kept = this.#budget.take(text);
    if (kept !== "") this.#emit({ id: this.id, seq: this.#seq + 1, name, value: encoder.encode(kept) });
  }

  /** Journals one event and hands it to every subscriber. A journal failure stops the execution. */
  #emit(event: ExecEvent): boolean {
    if (this.#journalBroken) return false;
    try {
      appendEvent(this.#deps.db, this.#deps.backend, event);
    } catch {
      this.#journalBroken = true;
      this.#requestStop("journal");
      return false;
    }
    this.#seq = event.seq;
    for (const subscriber of this.#subscribers) subscriber.push(event);
    return true;
  }

  #finish(status: ExecStatus, code: number, stderr?: string, result?: WorkspaceRuntimeValue): void {
    if (this.#seq < 0) return;
    const { db, backend, now } = this.#deps;
    const events: ExecEvent[] = [];
    if (stderr) events.push({ id: this.id, seq: this.#seq + 1, name: "stderr", value: encoder.encode(stderr) });
    const exitSeq = this.#seq + events.length + 1;
    events.push({ id: this.id, seq: exitSeq, name: "exit", code, ...(result === undefined ? {} : { result }) });
    try {
      db.transaction(() => {
        for (const event of events) appendEvent(db, backend, event);
        finishExecution(db, backend, this.id, status, now());
      });
    } catch {
      // Left `running`: the next Workspace over this storage closes it as interrupted.
    }
    for (const event of events) for (const subscriber of this.#subscribers) subscriber.push(event);
    for (const subscriber of this.#subscribers) subscriber.end();
    this.#subscribers.clear();
    this.#seq = -1;
    this.#deps.onFinished(this);
    this.#resolveDone();
  }
}

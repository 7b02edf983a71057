/**
 * `WorkerJavaScriptBackend`: a callable direct backend. Each `exec` checks
 * its arguments, builds the module graph from the workspace, and starts a
 * `LiveExecution` in a fresh Dynamic Worker; the journal keeps every event,
 * so `getExec` replays running and finished executions alike. Executions
 * left `running` by an earlier incarnation of the Durable Object are closed
 * as failed when the backend is attached, or when one is looked up.
 *
 * It speaks both protocols: our Workspace drives it as a direct backend
 * (attached at construction), and `connect(host)` serves the original's
 * module protocol over the same executions, for code that drives module
 * backends itself.
 */
import { rpcError } from "@cloudflare/computer-rpc";
import type { WorkspaceArtifacts, WorkspaceAssetsClient, WorkspaceGit } from "../../../contracts/capabilities.js";
import { hasNodeCompat, NODE_BUILTINS_DESCRIPTION } from "../../../modules/node-builtins.js";
import { assertHostModuleExports } from "../../../modules/parse.js";
import type { WorkspaceModuleFunctions, WorkspaceModuleHost } from "../../../modules/types.js";
import type { BackendContext, DirectBackend, DirectExec, DirectExecRequest } from "../../../runtime/backend.js";
import { closedError, WorkspaceError } from "../../../runtime/errors.js";
import type {
  ModuleExecutionInput,
  WorkspaceModuleBackend,
  WorkspaceModuleBackendHandle,
} from "../../../runtime/module-backend.js";
import type { WorkspaceRuntime } from "../../../runtime/runtime.js";
import type { ExecEvent, KillSignal, WorkspaceRuntimeEvent } from "../../../runtime/types.js";
import { jsonPlainProblem } from "../protocol/json.js";
import { utf8Length } from "../protocol/stdio.js";
import { LiveExecution } from "./execution.js";
import { GraphBuilder } from "./graph.js";
import {
  deleteExecution,
  ensureJournal,
  findExecution,
  insertExecution,
  lastSeq,
  markInterrupted,
  pruneJournal,
  readEvents,
  reconcileRunning,
} from "./journal.js";
import { type ResolvedOptions, resolveOptions, type WorkerJavaScriptOptions } from "./options.js";

function replayStream(events: ExecEvent[]): ReadableStream<ExecEvent> {
  let index = 0;
  return new ReadableStream<ExecEvent>(
    {
      pull(controller) {
        const next = events[index++];
        if (next) controller.enqueue(next);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

// `Names` only types the constructor's `trustedModules` (see TrustedModules in options.ts).
/**
 * What `connect(host)` takes. Typed as loosely as the original's host is
 * (its database is its own class), and checked when called: the backend
 * keeps its journal in the workspace database, so `db` must be ours.
 */
export interface WorkerJavaScriptHost {
  readonly db: object;
  readonly fs: object;
  readonly git?: unknown;
  readonly artifacts?: unknown;
  /** 0.8.0's host carries the runtime and assets too, for host module factories. */
  readonly runtime?: unknown;
  readonly assets?: unknown;
  /** Clock for journal times; default `Date.now`. */
  readonly now?: () => number;
}

/** An execution as `connect(host)`'s handle answers it: no sync, the backend works on the workspace itself. */
export interface WorkerJavaScriptEnvelope {
  id: string;
  /** Output events carry bytes (the journal keeps text and hands back bytes). */
  events: ReadableStream<WorkspaceRuntimeEvent>;
}

export interface WorkerJavaScriptHandle extends WorkspaceModuleBackendHandle {
  exec(input: ModuleExecutionInput): Promise<WorkerJavaScriptEnvelope>;
  getExec(input: { id: string; after?: number | "tail"; runtimeId?: string }): Promise<WorkerJavaScriptEnvelope>;
  close(): Promise<void>;
}

function isWorkspaceDatabase(db: object): db is BackendContext["db"] {
  const candidate = db as Partial<Record<"all" | "one" | "run" | "transaction" | "script", unknown>>;
  return ["all", "one", "run", "transaction", "script"].every(
    (name) => typeof candidate[name as keyof typeof candidate] === "function",
  );
}

export class WorkerJavaScriptBackend<Names extends string = string> implements DirectBackend, WorkspaceModuleBackend {
  readonly kind = "direct";
  readonly type = "worker-javascript";
  readonly callable = true;
  /** Sources are ES modules (the reference's `protocol: "module"`). */
  readonly protocol = "module";
  readonly id: string;
  readonly #options: ResolvedOptions;
  #context: BackendContext | undefined;
  /** The host modules' functions, built by their factories once per attach (on the first run). */
  #hostFunctions: Map<string, WorkspaceModuleFunctions> | undefined;
  /** Running executions, plus ids reserved while their graph is being built. */
  readonly #live = new Map<string, LiveExecution | "starting">();
  #closed = false;

  constructor(options: WorkerJavaScriptOptions<Names>) {
    this.#options = resolveOptions(options);
    this.id = this.#options.id;
  }

  /** The resolved options, defaults filled in. */
  get options(): Readonly<ResolvedOptions> {
    return this.#options;
  }

  /**
   * For a model: the source language, the entry convention, and every module code can import
   * (a host module by its factory's `description` or its export names).
   */
  get description(): string {
    const options = this.#options;
    return [
      "The command is ECMAScript module source, run in an isolated JavaScript runtime; relative imports resolve from cwd in the workspace.",
      "Put the work in `export default async function (input) { ... }` (the top level cannot do I/O); to run a file already written, re-export its default export (e.g. of ./main.js) from the module.",
      ...(options.egress.mode === "none" ? ["Code has no direct network access."] : []),
      ...(options.access === "read" ? ["The workspace is read-only here."] : []),
      "",
      "Modules code can import:",
      "- `node:fs/promises` (also `node:fs`): the workspace's files, async only.",
      ...(options.builtInHostModules
        ? [
            "- `ws:git`: the workspace's git (clone, status, diff, log, cli).",
            "- `ws:artifacts`: Artifacts repositories.",
          ]
        : []),
      ...options.describeModules(),
      ...(hasNodeCompat(options.compatibilityFlags) ? [NODE_BUILTINS_DESCRIPTION] : []),
    ].join("\n");
  }

  attach(context: BackendContext): void {
    this.#context = context;
    this.#hostFunctions = undefined;
    ensureJournal(context.db);
    reconcileRunning(context.db, this.id, new Set(this.#live.keys()), context.now());
    this.#prune();
  }

  async ready(): Promise<void> {
    this.#ready("ready");
  }

  /**
   * The original's module protocol: attaches to the host's workspace (unless
   * a Workspace already attached this backend to the same one) and returns a
   * handle over this backend's executions.
   */
  async connect(host: WorkerJavaScriptHost): Promise<WorkerJavaScriptHandle> {
    if (this.#closed) throw closedError("connect");
    const { db, fs } = host;
    if (!isWorkspaceDatabase(db)) {
      throw new TypeError(
        `${this.id}.connect(host): host.db is not a workspace database of this package (a Workspace from @cloudflare/computer passes one)`,
      );
    }
    if (this.#context && this.#context.db !== db) {
      throw new TypeError(`${this.id}.connect(host): the backend already serves another workspace`);
    }
    if (!this.#context) {
      this.attach({
        db,
        fs: fs as BackendContext["fs"],
        now: host.now ?? Date.now,
        git: () => host.git as WorkspaceGit,
        artifacts: () => host.artifacts as WorkspaceArtifacts,
        ...(host.runtime === undefined ? {} : { runtime: () => host.runtime as WorkspaceRuntime }),
        assets: () => host.assets as WorkspaceAssetsClient | undefined,
      });
    }
    const envelope = (exec: DirectExec): WorkerJavaScriptEnvelope => ({
      id: exec.id,
      events: exec.events as ReadableStream<WorkspaceRuntimeEvent>,
    });
    return {
      exec: async ({ source, id, ...request }) =>
        envelope(await this.exec(source, { ...request, id: id ?? crypto.randomUUID() })),
      getExec: async ({ id, after }) => envelope(await this.getExec(id, { after: after ?? 0 })),
      killExec: ({ id, signal }) => this.killExec(id, signal),
      disposeExec: ({ id }) => this.disposeExec(id),
      close: () => this.close(),
    };
  }

  async exec(source: string, request: DirectExecRequest): Promise<DirectExec> {
    const context = this.#ready("exec");
    const options = this.#options;
    const id = request.id;
    const cwd = request.cwd ?? options.root;
    const prepared = this.#prepare(source, request);
    this.#claim(id);
    this.#live.set(id, "starting");
    let execution: LiveExecution;
    try {
      const hostFunctions = this.#connectHostModules(context);
      const exports = new Map([...hostFunctions].map(([name, functions]) => [name, Object.keys(functions)]));
      const graph = await new GraphBuilder(context.fs, options, exports).build(source, cwd);
      if (this.#closed) throw closedError("runtime.exec");
      insertExecution(context.db, this.id, id, context.now());
      execution = new LiveExecution(id, {
        db: context.db,
        fs: context.fs,
        backend: this.id,
        options,
        now: context.now,
        git: () => context.git(),
        artifacts: () => context.artifacts(),
        hostFunctions,
        onFinished: (done) => {
          if (this.#live.get(done.id) === done) this.#live.delete(done.id);
          this.#prune();
        },
      });
      this.#live.set(id, execution);
      const events = execution.subscribe(0);
      execution.start({ graph, cwd, ...prepared });
      return { id, events };
    } catch (error) {
      if (this.#live.get(id) === "starting") this.#live.delete(id);
      throw error;
    }
  }

  async getExec(id: string, options: { after?: number | "tail" }): Promise<DirectExec> {
    const context = this.#ready("getExec");
    const after = options.after ?? 0;
    const live = this.#live.get(id);
    if (live instanceof LiveExecution) return { id, events: live.subscribe(after) };
    const row = findExecution(context.db, this.id, id);
    if (!row) throw rpcError("ENOENT", "getExec", id, "no such execution");
    if (row.status === "running") markInterrupted(context.db, this.id, id, context.now());
    // A finished execution's "tail" is its exit: there is nothing after it to wait for.
    const from = after === "tail" ? lastSeq(context.db, this.id, id) - 1 : after;
    return { id, events: replayStream(readEvents(context.db, this.id, id, from)) };
  }

  async killExec(id: string, _signal?: KillSignal): Promise<void> {
    const context = this.#ready("killExec");
    const live = this.#live.get(id);
    if (live instanceof LiveExecution) return live.cancel();
    if (live === "starting") throw rpcError("EEXEC_BUSY", "killExec", id, "the execution is still starting");
    const row = findExecution(context.db, this.id, id);
    if (!row) throw rpcError("ENOENT", "killExec", id, "no such execution");
    if (row.status === "running") markInterrupted(context.db, this.id, id, context.now());
  }

  async disposeExec(id: string): Promise<void> {
    const context = this.#ready("disposeExec");
    if (this.#live.has(id)) throw rpcError("EEXEC_BUSY", "disposeExec", id, "the execution is still running");
    deleteExecution(context.db, this.id, id);
  }

  /** Cancels every running execution. The journal stays. */
  async close(): Promise<void> {
    this.#closed = true;
    const running = [...this.#live.values()].filter((live): live is LiveExecution => live instanceof LiveExecution);
    await Promise.allSettled(running.map((live) => live.cancel()));
  }

  /**
   * Calls each host module's factory with the Workspace's services, once per attach; a factory that
   * throws, or exports a bad name, fails this run and is tried again on the next.
   */
  #connectHostModules(context: BackendContext): Map<string, WorkspaceModuleFunctions> {
    if (this.#hostFunctions) return this.#hostFunctions;
    const id = this.id;
    const host: WorkspaceModuleHost = {
      get git() {
        return context.git() as WorkspaceModuleHost["git"];
      },
      get artifacts() {
        return context.artifacts() as WorkspaceModuleHost["artifacts"];
      },
      get runtime() {
        if (!context.runtime) {
          throw new WorkspaceError("ENOTCONFIGURED", `${id}: this backend was not given a Workspace runtime`);
        }
        return context.runtime();
      },
      get assets() {
        return context.assets?.();
      },
    };
    const built = new Map<string, WorkspaceModuleFunctions>();
    for (const [specifier, factory] of this.#options.hostModules) {
      const functions: unknown = factory(host);
      const empty = typeof functions === "object" && functions !== null && Object.keys(functions).length === 0;
      if (!empty) assertHostModuleExports(specifier, functions);
      built.set(specifier.slice(3), empty ? {} : (functions as WorkspaceModuleFunctions));
    }
    this.#hostFunctions = built;
    return built;
  }

  #ready(syscall: string): BackendContext {
    if (this.#closed) throw closedError(`runtime.${syscall}`);
    if (!this.#context) {
      throw new WorkspaceError("ENOTCONFIGURED", `${this.id}: the backend is not attached to a Workspace`, {
        backend: this.id,
      });
    }
    return this.#context;
  }

  /** Refuses an id in use (EEXEC_BUSY), one already journaled (EEXEC_EXISTS), and the 25th concurrent run. */
  #claim(id: string): void {
    const context = this.#context as BackendContext;
    if (this.#live.has(id)) throw rpcError("EEXEC_BUSY", "exec", id, "an execution with this id is running");
    const row = findExecution(context.db, this.id, id);
    if (row) {
      if (row.status === "running") markInterrupted(context.db, this.id, id, context.now());
      throw new WorkspaceError("EEXEC_EXISTS", `EEXEC_EXISTS: execution id already used, exec: ${id}`, {
        backend: this.id,
      });
    }
    const max = this.#options.maxConcurrentExecutions;
    if (this.#live.size >= max) {
      throw rpcError("EEXEC_BUSY", "exec", id, `more than ${max} concurrent executions (maxConcurrentExecutions)`);
    }
  }

  /** Checks sizes and shapes; returns what the execution needs. */
  #prepare(
    source: string,
    request: DirectExecRequest,
  ): { input: string; env: Record<string, string>; stdin?: Uint8Array; timeoutMs: number } {
    const options = this.#options;
    if (utf8Length(source) > options.maxSourceBytes) {
      throw new TypeError(`source is larger than maxSourceBytes (${options.maxSourceBytes} bytes)`);
    }
    const input = request.input === undefined ? null : request.input;
    const problem = jsonPlainProblem(input, "input");
    if (problem) throw new TypeError(`input must be plain, finite, acyclic JSON: ${problem}`);
    const inputJson = JSON.stringify(input);
    if (utf8Length(inputJson) > options.maxInputBytes) {
      throw new TypeError(`input is larger than maxInputBytes (${options.maxInputBytes} bytes)`);
    }
    const env = { ...(request.env ?? {}) };
    if (utf8Length(JSON.stringify(env)) > options.maxEnvBytes) {
      throw new TypeError(`env is larger than maxEnvBytes (${options.maxEnvBytes} bytes)`);
    }
    const stdin = typeof request.stdin === "string" ? new TextEncoder().encode(request.stdin) : request.stdin;
    if (stdin && stdin.byteLength > options.maxStdinBytes) {
      throw new TypeError(`stdin is larger than maxStdinBytes (${options.maxStdinBytes} bytes)`);
    }
    const requested = request.timeoutMs ?? options.defaultTimeoutMs;
    if (requested > options.maxTimeoutMs) {
      throw new TypeError(`timeoutMs (${requested}) is larger than maxTimeoutMs (${options.maxTimeoutMs})`);
    }
    // 0 means "no timeout" elsewhere; here every execution is bounded, so it means the maximum.
    const timeoutMs = requested === 0 ? options.maxTimeoutMs : requested;
    return { input: inputJson, env, timeoutMs, ...(stdin ? { stdin } : {}) };
  }

  #prune(): void {
    const context = this.#context;
    if (!context) return;
    pruneJournal(context.db, this.id, context.now(), this.#options.retentionMs, this.#options.maxRetainedExecutions);
  }
}

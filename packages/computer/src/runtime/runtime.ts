/**
 * `workspace.runtime`: validates a call, picks the backend (the first one
 * when none is named) and hands over. Choosing a backend is routing, not
 * authorization: every backend sees the same workspace.
 */
import type { SyncBudget } from "@cloudflare/dofs/sync";
import { type ShellValue, sh } from "../contracts/sh.js";
import type { CommandRuntime } from "./command-runtime.js";
import type { DirectRuntime } from "./direct-runtime.js";
import { closedError, noBackendsError, unknownBackendError, WorkspaceError } from "./errors.js";
import type { ExecHandle } from "./handle.js";
import { OutputBound, type OutputSaving } from "./output/bound.js";
import { type ResolvedWorkspaceOutput, runOutputLimits, validateRunOutput } from "./output/options.js";
import type { RetryPendingSyncResult } from "./retry.js";
import type { DisposeExecOptions, ExecOptions, GetExecOptions, KillExecOptions } from "./types.js";
import {
  validateCwd,
  validateExecId,
  validateExecOptions,
  validateInput,
  validateResume,
  validateSignal,
} from "./validate.js";

export type BackendRuntime = CommandRuntime | DirectRuntime;

/** What `exec` accepts besides `(source, options)`: a tagged template whose values are shell-quoted. */
export type ExecTemplateArgs = [strings: TemplateStringsArray, ...values: ShellValue[]];

export class WorkspaceRuntime {
  readonly #backends: ReadonlyMap<string, BackendRuntime>;
  readonly #deferReady: () => boolean;
  readonly #beforeExec: () => Promise<void>;
  readonly #output: { limits: ResolvedWorkspaceOutput; saving: OutputSaving } | undefined;
  #closed = false;

  /**
   * `deferReady` says whether `sync: "defer"` can be honored (a retry
   * scheduler is configured); `beforeExec` runs before an execution is
   * dispatched (the Workspace indexes its mounts there); `output` bounds
   * what results keep (none: results keep everything, as in 0.2.1).
   */
  constructor(
    backends: readonly BackendRuntime[],
    deferReady: () => boolean,
    beforeExec: () => Promise<void> = async () => {},
    output?: { limits: ResolvedWorkspaceOutput; saving: OutputSaving },
  ) {
    const byId = new Map<string, BackendRuntime>();
    for (const backend of backends) {
      if (byId.has(backend.id))
        throw new TypeError(`Duplicate backend id "${backend.id}": each backend needs its own id`);
      byId.set(backend.id, backend);
    }
    this.#backends = byId;
    this.#deferReady = deferReady;
    this.#beforeExec = beforeExec;
    this.#output = output;
  }

  /** Configured backend ids, the default first. */
  get backends(): string[] {
    return [...this.#backends.keys()];
  }

  // `encoding: "utf8"` (and a template, which implies it) types output as strings; no encoding as bytes.
  exec(...template: ExecTemplateArgs): Promise<ExecHandle<"utf8">>;
  exec(source: string): Promise<ExecHandle<undefined>>;
  exec(source: string, options: ExecOptions<"utf8"> & { encoding: "utf8" }): Promise<ExecHandle<"utf8">>;
  exec(source: string, options: ExecOptions<undefined>): Promise<ExecHandle<undefined>>;
  // Options typed `ExecOptions<"utf8">` (encoding possibly absent) type the output as strings, as the
  // original's `WorkspaceRuntimeExecOptions<"utf8">` overload does; after the `undefined` one, so that
  // options without an encoding still type it as bytes.
  exec(source: string, options: ExecOptions<"utf8">): Promise<ExecHandle<"utf8">>;
  exec(source: string, options?: ExecOptions): Promise<ExecHandle>;
  async exec(first: string | TemplateStringsArray, ...rest: unknown[]): Promise<ExecHandle> {
    const isTemplate = typeof first !== "string";
    const source = isTemplate ? sh(first, ...(rest as ShellValue[])) : first;
    const options: ExecOptions = isTemplate ? { encoding: "utf8" } : ((rest[0] as ExecOptions | undefined) ?? {});
    if (typeof source !== "string") throw new TypeError("exec source must be a string");
    if (typeof options !== "object" || options === null) throw new TypeError("exec options must be an object");
    const backend = this.#route(options.backend, "exec");
    const id = options.id === undefined ? crypto.randomUUID() : validateExecId(options.id);
    validateInput(backend, options.input);
    validateCwd(options.cwd);
    validateExecOptions(options);
    validateRunOutput(options.output);
    if (options.sync === "defer" && !this.#deferReady()) {
      throw new WorkspaceError(
        "ENOTCONFIGURED",
        'sync: "defer" needs a retryScheduler: pass one to new Workspace({ retryScheduler }) so the deferred pull is retried',
        { backend: backend.id },
      );
    }
    await this.#beforeExec();
    const { backend: _backend, id: _id, sync, input, output: _output, ...given } = options;
    const common = { ...given, ...this.#bound(backend.id, id, options.output) };
    const idGiven = options.id !== undefined;
    if (backend.kind === "command") {
      return backend.exec(source, { ...common, id, idGiven, ...(sync === undefined ? {} : { sync }) });
    }
    return backend.exec(source, { ...common, id, idGiven, ...(input === undefined ? {} : { input }) });
  }

  getExec(id: string): Promise<ExecHandle<undefined>>;
  getExec(id: string, options: GetExecOptions<"utf8"> & { encoding: "utf8" }): Promise<ExecHandle<"utf8">>;
  getExec(id: string, options: GetExecOptions<undefined>): Promise<ExecHandle<undefined>>;
  getExec(id: string, options: GetExecOptions<"utf8">): Promise<ExecHandle<"utf8">>;
  getExec(id: string, options?: GetExecOptions): Promise<ExecHandle>;
  async getExec(id: string, options: GetExecOptions = {}): Promise<ExecHandle> {
    const backend = this.#route(options.backend, "getExec");
    validateExecId(id);
    validateResume(options.resume);
    validateExecOptions({ encoding: options.encoding });
    validateRunOutput(options.output);
    const { backend: _backend, output, ...rest } = options;
    return backend.getExec(id, { ...rest, ...this.#bound(backend.id, id, output) });
  }

  async killExec(id: string, options: KillExecOptions = {}): Promise<void> {
    const backend = this.#route(options.backend, "killExec");
    validateExecId(id);
    validateSignal(options.signal);
    await backend.killExec(id, options.signal);
  }

  async disposeExec(id: string, options: DisposeExecOptions = {}): Promise<void> {
    const backend = this.#route(options.backend, "disposeExec");
    validateExecId(id);
    await backend.disposeExec(id);
  }

  /** Whether `exec` on this backend takes `input` (false for unknown ids). */
  isCallable(id: string): boolean {
    return this.#backends.get(id)?.callable ?? false;
  }

  /** @internal The backend runtime for workspace-level sync calls. */
  backend(id: string | undefined, syscall: string): BackendRuntime {
    return this.#route(id, syscall);
  }

  /** @internal Workspace-level sync helpers route through here so errors match `exec`'s. */
  commandBackend(id: string | undefined, syscall: string): CommandRuntime | undefined {
    const backend = this.#route(id, syscall);
    return backend.kind === "command" ? backend : undefined;
  }

  /** @internal */
  async retryPendingSync(id: string | undefined, budget: SyncBudget): Promise<RetryPendingSyncResult> {
    const backend = this.commandBackend(id, "retryPendingSync");
    if (!backend) return { status: "idle", backend: id ?? this.backends[0] ?? "" };
    return backend.retryPendingSync(budget);
  }

  /** @internal */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#backends.values()].map((backend) => backend.close()));
  }

  /** The handle option that bounds a run's output, or nothing when output is kept whole. */
  #bound(
    backend: string,
    id: string,
    run: ExecOptions["output"],
  ): { output: () => OutputBound } | Record<string, never> {
    if (!this.#output) return {};
    const limits = runOutputLimits(this.#output.limits, run);
    if (!limits) return {};
    const saving = this.#output.saving;
    return { output: () => new OutputBound(limits, saving, { backend, id }) };
  }

  #route(id: string | undefined, syscall: string): BackendRuntime {
    if (this.#closed) throw closedError(`runtime.${syscall}`);
    if (this.#backends.size === 0) throw noBackendsError();
    if (id === undefined) return this.#backends.values().next().value as BackendRuntime;
    if (typeof id !== "string") throw new TypeError("backend must be a string id");
    const backend = this.#backends.get(id);
    if (!backend) throw unknownBackendError(id, this.backends);
    return backend;
  }
}

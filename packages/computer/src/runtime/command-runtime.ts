/**
 * Everything the runtime does around a command backend, so a backend only
 * supplies a transport: the sync bracket (push → spawn → events → pull),
 * runtime fencing, reconnect-once, and the FIFO that orders every sync step
 * of one backend. The FIFO is never held while a command runs: only the push
 * before it and the pull after it queue.
 */

import { SyncQueue } from "@cloudflare/computer-rpc/driver";
import type { Database } from "@cloudflare/dofs";
import { pullBatch, pullOnce, pushOnce, type SyncBudget, type SyncLocal } from "@cloudflare/dofs/sync";
import type { BackendExec, BackendHandle, CommandBackend, WireExecEvent } from "./backend.js";
import { BackendConnection, untilClosed } from "./connection.js";
import {
  ignoredExecIdError,
  isExecutionLost,
  WorkspaceExecutionLostError,
  WorkspacePreDispatchTransportError,
  WorkspaceTransportError,
} from "./errors.js";
import type { RuntimeFence } from "./fence.js";
import { ExecHandle } from "./handle.js";
import { refusedOf } from "./refused.js";
import {
  type RetryPendingSyncResult,
  retryNotBefore,
  type SyncRetryIntent,
  type SyncRetryOptions,
  type SyncRetryScheduler,
} from "./retry.js";
import { isDisposedStubError, safeErrorMessage } from "./transport.js";
import type { ExecEncoding, ExecEvent, ExecSyncSummary, KillSignal, WorkspaceRuntimeValue } from "./types.js";

export interface RuntimeServices {
  db: Database;
  fence: RuntimeFence;
  now: () => number;
  scheduler: SyncRetryScheduler | undefined;
  retry: Required<SyncRetryOptions>;
  /** Runs after every sync step (push, pull, retry), whatever its outcome: the workspace reclaims chunks there. */
  afterSync?: () => void;
}

export interface CommandExecRequest {
  id: string;
  /**
   * False when the runtime minted `id`: a backend that answers under an id of its own is then
   * taken at its word, as the original does (it checks the id only when the caller chose one).
   */
  idGiven?: boolean;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs?: number;
  encoding?: ExecEncoding;
  sync?: "wait" | "defer";
}

export interface SyncPullResult {
  status: "complete" | "pending";
  applied: number;
  /** The original's read-only skips. */
  skipped: import("@cloudflare/dofs/sync").SkippedEntry[];
  /** Ours: entries refused for a name too long to store; absent when none. */
  refused?: import("@cloudflare/dofs/sync").RefusedEntry[];
}

export class CommandRuntime {
  readonly kind = "command";
  readonly callable = false;
  readonly #backend: CommandBackend;
  readonly #connection: BackendConnection;
  readonly #services: RuntimeServices;
  readonly #queue: Pick<SyncQueue, "run">;

  constructor(backend: CommandBackend, services: RuntimeServices) {
    this.#backend = backend;
    this.#services = services;
    const queue = new SyncQueue();
    this.#queue = { run: (job) => queue.run(job).finally(() => services.afterSync?.()) };
    this.#connection = new BackendConnection(backend, services.db, services.now);
  }

  get id(): string {
    return this.#backend.id;
  }

  get type(): string {
    return this.#backend.type;
  }

  get #local(): SyncLocal {
    return { db: this.#services.db, peer: this.id, now: this.#services.now };
  }

  async exec(source: string, request: CommandExecRequest): Promise<ExecHandle> {
    let pushed = 0;
    const started = await this.#connection.run(
      "shell.exec",
      async (handle) => {
        pushed = handle.sync === "remote" ? await this.#prePush(handle) : 0;
        const exec = await handle.rpc.shell.exec({
          source,
          id: request.id,
          ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
          ...(request.env === undefined ? {} : { env: request.env }),
          // Command backends take bytes, as the original's ShellRPC does: a string is sent as its UTF-8.
          ...(request.stdin === undefined ? {} : { stdin: stdinBytes(request.stdin) }),
          ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
        });
        return { handle, exec };
      },
      {
        // Only a failure that proves the command was never sent may be repeated.
        replayable: (error) => error instanceof WorkspacePreDispatchTransportError || isDisposedStubError(error),
        ambiguous: (error) =>
          new WorkspaceTransportError(
            `${this.id}.shell.exec transport failed; the command may have started and was not replayed: ${safeErrorMessage(error)}`,
            { backend: this.id, cause: error },
          ),
      },
    );
    const { handle, exec } = started;
    if (exec.id !== request.id && (request.idGiven !== false || typeof exec.id !== "string" || exec.id === "")) {
      await exec.events.cancel().catch(() => {});
      throw ignoredExecIdError(this.id, exec.id, request.id);
    }
    const id = exec.id;
    this.#services.fence.record(this.id, id, handle.runtimeId);
    const bracket = handle.sync === "remote";
    const defer = request.sync === "defer";
    return new ExecHandle(toEvents(exec, handle, this.id), {
      id,
      backend: this.id,
      ...(request.encoding === undefined ? {} : { encoding: request.encoding }),
      kill: (signal) => this.killExec(id, signal),
      finish: async () => {
        if (!bracket) return noSync();
        return defer ? this.#deferPull(id, handle.runtimeId, pushed) : this.#postPull(handle.runtimeId, pushed);
      },
      // A deferred execution must still drain, or the target would miss its last writes.
      onCancel: defer ? "drain" : "detach",
      canceled: () => {
        if (bracket) void this.#recordIntent({ runtimeId: handle.runtimeId, error: "stream canceled before drain" });
      },
    });
  }

  async getExec(
    id: string,
    options: { encoding?: ExecEncoding; resume?: "tail" | "full" | number },
  ): Promise<ExecHandle> {
    const after = options.resume === undefined || options.resume === "full" ? 0 : options.resume;
    const attach = (from: number | "tail") =>
      this.#connection.run("shell.getExec", async (handle) => {
        this.#services.fence.check(this.id, id, handle.runtimeId);
        return { handle, exec: await handle.rpc.shell.getExec({ id, after: from }) };
      });
    const { handle, exec } = await attach(after);
    return new ExecHandle(toEvents(exec, handle, this.id), {
      id,
      backend: this.id,
      ...(options.encoding === undefined ? {} : { encoding: options.encoding }),
      kill: (signal) => this.killExec(id, signal),
      // A reattach pushes nothing, but what the command wrote still comes back.
      finish: async () => (handle.sync === "remote" ? this.#postPull(handle.runtimeId, 0) : noSync()),
      ...(after === 0
        ? {}
        : {
            replay: async () => {
              const again = await attach(0);
              return toEvents(again.exec, again.handle, this.id);
            },
          }),
    });
  }

  async killExec(id: string, signal?: KillSignal): Promise<void> {
    await this.#connection.run("shell.killExec", async (handle) => {
      this.#services.fence.check(this.id, id, handle.runtimeId);
      await handle.rpc.shell.killExec({ id, ...(signal === undefined ? {} : { signal }) });
    });
  }

  async disposeExec(id: string): Promise<void> {
    await this.#connection.run("shell.disposeExec", async (handle) => {
      this.#services.fence.check(this.id, id, handle.runtimeId);
      await handle.rpc.shell.disposeExec({ id });
      this.#services.fence.forget(this.id, id, handle.runtimeId);
    });
  }

  /** Pushes every local change to the backend. Returns the entries sent. */
  push(): Promise<number> {
    return this.#queue.run(() =>
      this.#connection.run("sync.push", async (handle) =>
        handle.sync === "remote" ? pushOnce(this.#local, handle.rpc.sync) : 0,
      ),
    );
  }

  /** Pulls the backend's changes: all of them, or one bounded batch. */
  pull(batch?: SyncBudget): Promise<SyncPullResult> {
    return this.#queue.run(() =>
      this.#connection.run("sync.pull", async (handle): Promise<SyncPullResult> => {
        if (handle.sync !== "remote") return { status: "complete", applied: 0, skipped: [] };
        if (batch) {
          const result = await pullBatch(this.#local, handle.rpc.sync, batch);
          return { status: result.status, applied: result.applied, skipped: result.skipped, ...refusedOf(result) };
        }
        return { status: "complete", ...(await pullOnce(this.#local, handle.rpc.sync)) };
      }),
    );
  }

  /** One step of a pending sync, run in the FIFO; see `RetryPendingSyncResult` for the outcomes. */
  retryPendingSync(budget: SyncBudget): Promise<RetryPendingSyncResult> {
    return this.#queue.run(() => this.#retry(budget));
  }

  async ready(): Promise<void> {
    await this.#connection.handle();
  }

  async close(): Promise<void> {
    await this.#connection.close();
    await this.#backend.close?.();
  }

  /** The push before a spawn. A transport failure here is pre-dispatch: nothing ran, so push and spawn repeat. */
  async #prePush(handle: BackendHandle): Promise<number> {
    try {
      return await this.#queue.run(() => pushOnce(this.#local, handle.rpc.sync));
    } catch (error) {
      if (!this.#connection.isTransportError(error)) throw error;
      throw new WorkspacePreDispatchTransportError(`${this.id} pre-exec push failed: ${safeErrorMessage(error)}`, {
        backend: this.id,
        cause: error,
      });
    }
  }

  /** The pull after an execution drained, fenced to the runtime that ran it. A failure is an outcome, not an error. */
  async #postPull(runtimeId: string, pushed: number): Promise<ExecSyncSummary> {
    try {
      const pulled = await this.#queue.run(() =>
        this.#connection.run("sync.pull", async (handle) => {
          this.#checkRuntime(handle, runtimeId);
          return pullOnce(this.#local, handle.rpc.sync);
        }),
      );
      const { applied, skipped } = pulled;
      const refused = refusedOf(pulled);
      return {
        pushed,
        pulled: applied,
        skipped,
        ...refused,
        sync: { status: "complete", applied, skipped, ...refused },
      };
    } catch (error) {
      const message = safeErrorMessage(error);
      await this.#recordIntent({ runtimeId, error: message });
      return {
        pushed,
        pulled: 0,
        skipped: [],
        sync: { status: "pending", applied: 0, skipped: [], error: message, backend: this.id, runtimeId },
      };
    }
  }

  /**
   * `sync: "defer"`: instead of pulling, settle the backend and record how far
   * a later retry must pull. If even that fails, an unfenced intent (no
   * target, no runtime) still makes sure the changes are fetched eventually.
   */
  async #deferPull(id: string, runtimeId: string, pushed: number): Promise<ExecSyncSummary> {
    try {
      const marks = await this.#connection.run("sync.watermarks", async (handle) => {
        if (handle.runtimeId !== runtimeId) throw new WorkspaceExecutionLostError(id, { backend: this.id, runtimeId });
        return handle.rpc.sync.watermarks({ settle: true });
      });
      const targetCursor = { rev: marks.currentRev, path: null };
      const intent = await this.#recordIntent({ runtimeId, targetCursor });
      return {
        pushed,
        pulled: 0,
        skipped: [],
        sync: {
          status: "pending",
          applied: 0,
          skipped: [],
          error: DEFERRED_PULL_MESSAGE,
          backend: this.id,
          runtimeId,
          targetCursor: intent?.targetCursor ?? targetCursor,
        },
      };
    } catch (error) {
      const message = safeErrorMessage(error);
      await this.#recordIntent({ error: message });
      return {
        pushed,
        pulled: 0,
        skipped: [],
        sync: { status: "pending", applied: 0, skipped: [], error: message, backend: this.id },
      };
    }
  }

  /**
   * Stores (or widens) the backend's one intent. A later execution can only
   * widen the target: an intent without a target already means "everything".
   */
  async #recordIntent(fields: Partial<Pick<SyncRetryIntent, "runtimeId" | "targetCursor" | "error">>) {
    const scheduler = this.#services.scheduler;
    if (!scheduler) return undefined;
    try {
      const existing = await scheduler.get(this.id);
      let targetCursor = fields.targetCursor;
      if (existing && (existing.targetCursor === undefined || targetCursor === undefined)) targetCursor = undefined;
      else if (existing?.targetCursor && targetCursor && existing.targetCursor.rev > targetCursor.rev) {
        targetCursor = existing.targetCursor;
      }
      const intent: SyncRetryIntent = {
        backend: this.id,
        attempt: 1,
        notBefore: retryNotBefore(this.#services.now(), 1, this.#services.retry),
        ...(targetCursor === undefined ? {} : { targetCursor }),
        ...(fields.runtimeId === undefined ? {} : { runtimeId: fields.runtimeId }),
        ...(fields.error === undefined ? {} : { error: fields.error }),
      };
      await scheduler.schedule(intent);
      return intent;
    } catch {
      // The result already says the sync is pending; a scheduler that cannot store must not turn it into a throw.
      return undefined;
    }
  }

  async #retry(budget: SyncBudget): Promise<RetryPendingSyncResult> {
    const backend = this.id;
    const scheduler = this.#services.scheduler;
    if (!scheduler) throw new TypeError("retryPendingSync needs a retryScheduler");
    const { maxAttempts } = this.#services.retry;
    const intent = await scheduler.get(backend);
    if (!intent) return { status: "idle", backend };
    const runtime = intent.runtimeId === undefined ? {} : { runtimeId: intent.runtimeId };
    if (intent.attempt > maxAttempts) {
      const error = intent.error ?? "pending sync retry attempts exhausted";
      return { status: "exhausted", backend, ...runtime, attempt: intent.attempt, error };
    }
    try {
      const result = await this.#connection.run("sync.pull", async (handle) => {
        if (intent.runtimeId !== undefined && handle.runtimeId !== intent.runtimeId) {
          throw new WorkspaceExecutionLostError("(pending sync)", { backend, runtimeId: intent.runtimeId });
        }
        return pullBatch(this.#local, handle.rpc.sync, {
          ...budget,
          ...(intent.targetCursor ? { targetCursor: intent.targetCursor } : {}),
        });
      });
      if (result.status === "complete") {
        await scheduler.clear(backend);
        return { status: "complete", backend, applied: result.applied, skipped: result.skipped, ...refusedOf(result) };
      }
      // The budget ran out but the batch made progress: start the backoff over.
      const notBefore = retryNotBefore(this.#services.now(), 1, this.#services.retry);
      const { error: _error, ...rest } = intent;
      await scheduler.schedule({ ...rest, attempt: 1, notBefore });
      return {
        status: "pending",
        backend,
        ...runtime,
        applied: result.applied,
        skipped: result.skipped,
        ...refusedOf(result),
        attempt: 1,
        notBefore,
        error: "pending sync ran out of budget with entries left to pull",
      };
    } catch (error) {
      const message = safeErrorMessage(error);
      if (isExecutionLost(error) && intent.runtimeId !== undefined) {
        await scheduler.clear(backend);
        return { status: "lost", backend, runtimeId: intent.runtimeId, error: message };
      }
      if (intent.attempt >= maxAttempts)
        return { status: "exhausted", backend, ...runtime, attempt: intent.attempt, error: message };
      const attempt = intent.attempt + 1;
      const notBefore = retryNotBefore(this.#services.now(), attempt, this.#services.retry);
      await scheduler.schedule({ ...intent, attempt, notBefore, error: message });
      return { status: "pending", backend, ...runtime, applied: 0, skipped: [], attempt, notBefore, error: message };
    }
  }

  #checkRuntime(handle: BackendHandle, runtimeId: string): void {
    if (handle.runtimeId !== runtimeId) {
      throw new WorkspaceExecutionLostError("(post-exec pull)", { backend: this.id, runtimeId });
    }
  }
}

function noSync(): ExecSyncSummary {
  return { pushed: 0, pulled: 0, skipped: [], sync: { status: "complete", applied: 0, skipped: [] } };
}

/**
 * Wire events to runtime events, pulled one at a time so the backend's
 * backpressure reaches the wire. A read errors once the connection closes.
 */
function toEvents(exec: BackendExec, handle: BackendHandle, backend: string): ReadableStream<ExecEvent> {
  const reader = exec.events.getReader();
  return new ReadableStream<ExecEvent>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await untilClosed(handle, reader.read(), `${backend} exec ${exec.id} events`);
          if (done) {
            controller.close();
            return;
          }
          const event = toEvent(value);
          if (event) {
            controller.enqueue(event);
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function toEvent(event: WireExecEvent): ExecEvent | undefined {
  if (event.name === "exit") {
    return {
      id: event.id,
      seq: event.seq,
      name: "exit",
      code: event.code ?? -1,
      // A callable backend's result crossed the wire as JSON.
      ...(event.result === undefined ? {} : { result: event.result as WorkspaceRuntimeValue }),
    };
  }
  if (event.name === "stdout" || event.name === "stderr") {
    return { id: event.id, seq: event.seq, name: event.name, value: event.value ?? new Uint8Array() };
  }
  // Heartbeats and anything newer than this runtime are not the caller's business.
  return undefined;
}

/** `sync.error` of a deferred pull: nothing failed, the pull is left to `retryPendingSync`. */
const DEFERRED_PULL_MESSAGE = 'the pull was deferred (sync: "defer"); retryPendingSync() applies it';

function stdinBytes(stdin: string | Uint8Array): Uint8Array {
  return typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
}

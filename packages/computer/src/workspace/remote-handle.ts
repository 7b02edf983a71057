/**
 * An execution handle rebuilt on the client side of Workers RPC, with the
 * same contract as `ExecHandle`: a highWaterMark-0, single-consumer
 * `ReadableStream<ExecEvent>` plus `id`, `backend`, `result()`, `kill()` and
 * dispose. The remote `WorkspaceRuntimeExecHandleStub` offers `stream()`
 * (NDJSON bytes) and `result()`, each once and never both; this class maps
 * its two ways of consuming onto them lazily, so nothing crosses the wire
 * until the caller reads or asks for the result.
 *
 * The remote stub is released once the execution has been consumed (the
 * stream closed or errored, the result settled) or on dispose, which
 * releases it at once, as the original's does, even while a `result()` is
 * still pending.
 */
import { type ConsumerMode, claimResult, claimStream } from "../runtime/consumer.js";
import type { WorkspaceRuntimeExecHandle } from "../runtime/handle.js";
import type { ExecEncoding, ExecEvent, ExecResult, KillSignal } from "../runtime/types.js";
import { decodeRuntimeEvents } from "../runtime/wire.js";

/** What the client needs of a `WorkspaceRuntimeExecHandleStub` across RPC (every call is a promise there). */
export interface RemoteExecHandleStub {
  result(): Promise<ExecResult>;
  stream(): ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>;
  [Symbol.dispose](): void;
}

/** Our earlier name for the handle both clients hand out. */
export type WorkspaceExecHandle<E extends ExecEncoding = ExecEncoding> = WorkspaceRuntimeExecHandle<E>;

class RemoteSource {
  mode: ConsumerMode = "idle";
  #reader: ReadableStreamDefaultReader<ExecEvent> | undefined;
  #released = false;

  constructor(
    readonly id: string,
    readonly remote: RemoteExecHandleStub,
  ) {}

  async pull(controller: ReadableStreamDefaultController<ExecEvent>): Promise<void> {
    if (!claimStream(this, controller)) return;
    try {
      this.#reader ??= decodeRuntimeEvents(await this.remote.stream()).getReader();
      const next = await this.#reader.read();
      if (!next.done) {
        controller.enqueue(next.value);
        return;
      }
      controller.close();
    } catch (error) {
      this.release();
      throw error;
    }
    this.release();
  }

  async cancel(reason?: unknown): Promise<void> {
    try {
      await this.#reader?.cancel(reason);
    } finally {
      this.release();
    }
  }

  /** Drops the remote stub; the execution itself keeps running. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      this.remote[Symbol.dispose]();
    } catch {
      // Already disposed with its parent stub; nothing left to release.
    }
  }
}

export class RemoteExecHandle<E extends ExecEncoding = ExecEncoding>
  extends ReadableStream<ExecEvent<E>>
  implements WorkspaceRuntimeExecHandle<E>
{
  readonly id: string;
  readonly backend: string;
  readonly #source: RemoteSource;
  readonly #kill: (signal?: KillSignal) => Promise<void>;
  #result: Promise<ExecResult<E>> | undefined;

  constructor(
    remote: RemoteExecHandleStub,
    options: { id: string; backend: string; kill(signal?: KillSignal): Promise<void> },
  ) {
    const source = new RemoteSource(options.id, remote);
    // The events are what the remote handle decoded them to; `E` only names which.
    super(
      {
        pull: (controller) => source.pull(controller as ReadableStreamDefaultController<ExecEvent>),
        cancel: (reason) => source.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    this.id = options.id;
    this.backend = options.backend;
    this.#source = source;
    this.#kill = options.kill;
  }

  /** Memoized. Throws synchronously once reading the stream has started, as `ExecHandle.result()` does. */
  result(): Promise<ExecResult<E>> {
    if (this.#result) return this.#result;
    claimResult(this.#source);
    this.#result = this.#collect();
    return this.#result;
  }

  kill(signal?: KillSignal): Promise<void> {
    return this.#kill(signal);
  }

  /** Awaited here, not chained: `.finally` on an RPC promise would be read as a remote method. */
  async #collect(): Promise<ExecResult<E>> {
    try {
      return (await this.#source.remote.result()) as ExecResult<E>;
    } finally {
      this.#source.release();
    }
  }

  /**
   * Releases the remote handle (a pending `result()` then fails) and cancels
   * the stream; the execution keeps running (use `kill`).
   */
  [Symbol.dispose](): void {
    const canceled = this.#result || this.locked ? this.#source.cancel() : this.cancel();
    canceled.catch(() => {});
    this.#source.release();
  }
}

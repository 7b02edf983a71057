/**
 * `ExecHandle`: one execution's event stream plus `result()`, `kill()` and
 * dispose. The stream has highWaterMark 0 and a single consumer, and it and
 * `result()` are two ways to consume the same events, so they exclude each
 * other: reading after `result()` errors the stream, and `result()` after
 * reading started throws. Backends supply the source stream and a kill
 * function; the sync bracket plugs in through `finish`, which runs once the
 * source has drained — before the stream closes, whichever way it is read.
 */
import { concatBytes } from "@cloudflare/dofs";
import { type ConsumerMode, claimResult, claimStream } from "./consumer.js";
import { decodeUtf8Events } from "./decode.js";
import type { OutputBound } from "./output/bound.js";
import { refusedOf } from "./refused.js";
import { MISSING_EXIT_CODE, statusForExitCode } from "./status.js";
import type {
  ExecChunk,
  ExecEncoding,
  ExecEvent,
  ExecExitEvent,
  ExecResult,
  ExecSyncSummary,
  KillSignal,
} from "./types.js";

export interface ExecHandleOptions {
  id: string;
  backend: string;
  /** `"utf8"` decodes byte events to strings; otherwise values pass through as the source sent them. */
  encoding?: ExecEncoding;
  kill(signal?: KillSignal): Promise<void>;
  /**
   * Runs once, after the source drained and before the stream closes, with
   * the exit event if there was one. Must not throw: a failed sync is an
   * outcome (`sync.status: "pending"`). Defaults to an empty, complete sync.
   */
  finish?(exit: ExecExitEvent | undefined): Promise<ExecSyncSummary>;
  /**
   * The consumer canceled the stream before it drained. `"drain"` keeps
   * reading the source in the background so `finish` still runs (a deferred
   * sync must see the whole execution); `"detach"` cancels the source and
   * calls `canceled` instead. Default `"detach"`.
   */
  onCancel?: "drain" | "detach";
  canceled?(): void;
  /**
   * Set when the stream starts mid-execution (a resumed `getExec`): `result()`
   * then cancels it and collects this full replay instead, since a result
   * made of a suffix would be wrong.
   */
  replay?(): Promise<ReadableStream<ExecEvent>>;
  /**
   * Bounded output (output/bound.ts): called once per pass over the events
   * (again for a replay). `result()` then keeps each stream's tail instead
   * of everything, and the exit event carries `truncated`.
   */
  output?(): OutputBound;
}

/** The summary reported when no sync bracket is plugged in. */
export function emptySyncSummary(): ExecSyncSummary {
  return { pushed: 0, pulled: 0, skipped: [], sync: { status: "complete", applied: 0, skipped: [] } };
}

/** State shared with the underlying source, which is built before `this` exists. */
class HandleSource {
  mode: ConsumerMode = "idle";
  exit: ExecExitEvent | undefined;
  /** Settles with the finish hook's outcome, whichever way the events were consumed. */
  readonly summary: Promise<ExecSyncSummary>;
  #reader: ReadableStreamDefaultReader<ExecEvent> | undefined;
  #settled: Promise<ExecSyncSummary> | undefined;
  #summarize!: (summary: ExecSyncSummary) => void;
  #noSummary!: (reason: unknown) => void;

  constructor(
    readonly id: string,
    readonly events: ReadableStream<ExecEvent>,
    readonly options: ExecHandleOptions,
  ) {
    this.summary = new Promise<ExecSyncSummary>((resolve, reject) => {
      this.#summarize = resolve;
      this.#noSummary = reject;
    });
    // Nobody has to ask for the summary; an unread rejection is not an error.
    this.summary.catch(() => {});
  }

  get reader(): ReadableStreamDefaultReader<ExecEvent> {
    this.#reader ??= this.events.getReader();
    return this.#reader;
  }

  /** Reads one event, remembering the exit. */
  async next(): Promise<{ done: true } | { done: false; value: ExecEvent }> {
    const next = await this.reader.read();
    if (next.done) return { done: true };
    if (next.value.name === "exit") this.exit ??= next.value;
    return { done: false, value: next.value };
  }

  /** The finish hook, run at most once. */
  settle(): Promise<ExecSyncSummary> {
    this.#settled ??= (this.options.finish ?? (async () => emptySyncSummary()))(this.exit).then(
      (summary) => {
        this.#summarize(summary);
        return summary;
      },
      (error: unknown) => {
        this.#noSummary(error);
        throw error;
      },
    );
    return this.#settled;
  }

  async pull(controller: ReadableStreamDefaultController<ExecEvent>): Promise<void> {
    if (!claimStream(this, controller)) return;
    const next = await this.next();
    if (!next.done) {
      controller.enqueue(next.value);
      return;
    }
    await this.settle();
    controller.close();
  }

  async cancel(reason?: unknown): Promise<void> {
    if (this.options.onCancel === "drain") {
      void this.#drainInBackground();
      return;
    }
    this.#noSummary(new TypeError(`Execution "${this.id}": the stream was canceled before the execution settled`));
    await this.reader.cancel(reason);
    this.options.canceled?.();
  }

  async #drainInBackground(): Promise<void> {
    try {
      for (;;) {
        const next = await this.next();
        if (next.done) break;
      }
      await this.settle();
    } catch {
      // Nobody is listening any more; the finish hook records failures itself.
    }
  }
}

/**
 * `E` is the encoding the handle was asked for: `"utf8"` makes output
 * strings, `undefined` bytes; the default (either) is what a caller that did
 * not say gets.
 */
export class ExecHandle<E extends ExecEncoding = ExecEncoding>
  extends ReadableStream<ExecEvent<E>>
  implements WorkspaceRuntimeExecHandle<E>
{
  readonly id: string;
  readonly backend: string;
  readonly #source: HandleSource;
  readonly #encoding: ExecEncoding | undefined;
  readonly #options: ExecHandleOptions;
  readonly #bound: OutputBound | undefined;
  #result: Promise<ExecResult<E>> | undefined;

  constructor(source: ReadableStream<ExecEvent>, options: ExecHandleOptions) {
    // Bounding sees the raw bytes (the saved file is byte for byte); decoding comes after.
    // A resumed stream is a suffix: only the full replay `result()` collects is bounded (and saved).
    const bound = options.replay ? undefined : options.output?.();
    const bounded = bound ? bound.wrap(source) : source;
    const events = options.encoding === "utf8" ? decodeUtf8Events(bounded) : bounded;
    const state = new HandleSource(options.id, events, options);
    // The decoder above makes the events match `E`; the source types cannot say so.
    super(
      {
        pull: (controller) => state.pull(controller as ReadableStreamDefaultController<ExecEvent>),
        cancel: (reason) => state.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    this.id = options.id;
    this.backend = options.backend;
    this.#source = state;
    this.#encoding = options.encoding;
    this.#options = options;
    this.#bound = bound;
  }

  /**
   * Drains the execution and settles it. Memoized. Throws synchronously (not a
   * rejected promise) when the stream is already being read, since that is a
   * programming error rather than an outcome of the execution.
   */
  result(): Promise<ExecResult<E>> {
    if (this.#result) return this.#result;
    claimResult(this.#source);
    this.#result = this.#collect();
    return this.#result;
  }

  /**
   * What the sync bracket adds to a result — `pushed`, `pulled`, `skipped`,
   * `refused` (only when a pull refused something), `sync` — for a caller that reads the stream (and so cannot call
   * `result()`). Resolves once the events drained, before the stream closes;
   * rejects if the stream was canceled before that.
   */
  summary(): Promise<ExecSyncSummary> {
    if (this.#result) {
      return this.#result.then(({ pushed, pulled, skipped, refused, sync }) => ({
        pushed,
        pulled,
        skipped,
        ...refusedOf({ refused }),
        sync,
      }));
    }
    return this.#source.summary;
  }

  kill(signal?: KillSignal): Promise<void> {
    return this.#options.kill(signal);
  }

  /** Cancels the stream and with it the source; the execution itself keeps running (use `kill`). */
  [Symbol.dispose](): void {
    // A locked stream refuses cancel(), so go to the source directly; either way the rejection is nobody's to handle.
    const canceled = this.locked ? this.#source.cancel() : this.cancel();
    canceled.catch(() => {});
  }

  async #collect(): Promise<ExecResult<E>> {
    let source = this.#source;
    let bound = this.#bound;
    if (this.#options.replay) {
      await source.reader.cancel().catch(() => {});
      bound = this.#options.output?.();
      const replayed = await this.#options.replay();
      const full = bound ? bound.wrap(replayed) : replayed;
      source = new HandleSource(this.id, this.#encoding === "utf8" ? decodeUtf8Events(full) : full, this.#options);
    }
    const stdout: Array<string | Uint8Array> = [];
    const stderr: Array<string | Uint8Array> = [];
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      const event = next.value;
      // With bounded output the tails are kept by the bound; holding every chunk here is what it prevents.
      if (event.name !== "exit" && !bound) (event.name === "stdout" ? stdout : stderr).push(event.value);
    }
    const exit = source.exit;
    const exitCode = exit?.code ?? MISSING_EXIT_CODE;
    const summary = await source.settle();
    const result: ExecResult<E> = {
      status: statusForExitCode(exitCode),
      exitCode,
      stdout: (bound ? bound.kept("stdout", this.#encoding) : this.#join(stdout)) as ExecChunk<E>,
      stderr: (bound ? bound.kept("stderr", this.#encoding) : this.#join(stderr)) as ExecChunk<E>,
      ...summary,
    };
    if (exit?.result !== undefined) result.value = exit.result;
    const truncated = bound?.truncation;
    if (truncated) result.truncated = truncated;
    return result;
  }

  #join(parts: Array<string | Uint8Array>): string | Uint8Array {
    if (this.#encoding === "utf8") return parts.map((part) => (typeof part === "string" ? part : "")).join("");
    return concatBytes(parts.map((part) => (typeof part === "string" ? new TextEncoder().encode(part) : part)));
  }
}

/**
 * What every execution handle offers, in-isolate (`ExecHandle`) or rebuilt
 * over RPC (the client's): a single-consumer event stream plus these. The
 * original's name; its default is raw bytes.
 */
export interface WorkspaceRuntimeExecHandle<E extends ExecEncoding = undefined> extends ReadableStream<ExecEvent<E>> {
  readonly id: string;
  readonly backend: string;
  result(): Promise<ExecResult<E>>;
  kill(signal?: KillSignal): Promise<void>;
  [Symbol.dispose](): void;
}

/**
 * Bounded output for one run. Sits between a backend's event stream and the
 * handle: every event passes through uncut (the live stream is the whole
 * output), while each stream's tail is kept for `result()` and, once a
 * stream passes its limits, its full output is saved to a file. The exit
 * event leaves with `truncated` set for the streams that were cut.
 *
 * Pull-based with highWaterMark 0: the next event is read from the backend
 * only after the last one is stored, so memory stays at one tail and one
 * storage chunk per stream however much a command prints.
 */
import type { ExecEncoding, ExecEvent } from "../types.js";
import type { RunOutputLimits, TruncatedOutput, WorkspaceRuntimeTruncation } from "./options.js";
import { OutputSpill, type OutputStore, outputFileName } from "./spill.js";
import { OutputTail } from "./tail.js";

type StreamName = "stdout" | "stderr";

/** Everything a Workspace's runs share: where to save and which files are being written. */
export interface OutputSaving {
  store: OutputStore;
  active: Set<string>;
}

class StreamBound {
  readonly tail: OutputTail;
  #spill: OutputSpill | undefined;

  constructor(
    readonly limits: RunOutputLimits,
    readonly saving: OutputSaving,
    readonly path: string,
  ) {
    this.tail = new OutputTail(limits);
  }

  push(chunk: Uint8Array): void {
    if (this.#spill) {
      this.tail.push(chunk);
      this.#spill.write(chunk);
      return;
    }
    // Until the first cut the window is the whole output so far: the head of the file.
    const head = this.tail.bytes();
    if (!this.tail.push(chunk)) return;
    this.#spill = new OutputSpill(this.saving.store, this.path, this.saving.active);
    this.#spill.start(this.limits.dir, this.limits.keep, [head, chunk]);
  }

  finish(): TruncatedOutput | undefined {
    if (!this.#spill) return undefined;
    this.#spill.close();
    const summary = this.tail.summary();
    const failure = this.#spill.failure;
    return failure === undefined
      ? { status: "saved", path: this.path, ...summary }
      : { status: "not-saved", reason: failure, ...summary };
  }
}

export class OutputBound {
  readonly #streams: Record<StreamName, StreamBound>;
  #truncation: WorkspaceRuntimeTruncation | undefined;
  #finished = false;

  constructor(limits: RunOutputLimits, saving: OutputSaving, run: { backend: string; id: string }) {
    const at = (name: StreamName) =>
      `${limits.dir === "/" ? "" : limits.dir}/${outputFileName(run.backend, run.id, name)}`;
    this.#streams = {
      stdout: new StreamBound(limits, saving, at("stdout")),
      stderr: new StreamBound(limits, saving, at("stderr")),
    };
  }

  /** The backend's events, passed through while they are stored; the exit gains `truncated`. */
  wrap(source: ReadableStream<ExecEvent>): ReadableStream<ExecEvent> {
    const reader = source.getReader();
    return new ReadableStream<ExecEvent>(
      {
        pull: async (controller) => {
          const next = await reader.read();
          if (next.done) {
            this.#finish();
            controller.close();
            return;
          }
          const event = next.value;
          if (event.name === "exit") {
            const truncated = this.#finish();
            controller.enqueue(truncated ? { ...event, truncated } : event);
            return;
          }
          const bytes = typeof event.value === "string" ? new TextEncoder().encode(event.value) : event.value;
          this.#streams[event.name].push(bytes);
          controller.enqueue(event);
        },
        cancel: (reason) => {
          this.#finish();
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The streams that were cut; undefined when both fit. */
  get truncation(): WorkspaceRuntimeTruncation | undefined {
    return this.#truncation;
  }

  /** What `result()` keeps of one stream: its tail, as text or bytes. */
  kept(name: StreamName, encoding: ExecEncoding): string | Uint8Array {
    const tail = this.#streams[name].tail;
    return encoding === "utf8" ? tail.text() : tail.bytes().slice();
  }

  #finish(): WorkspaceRuntimeTruncation | undefined {
    if (this.#finished) return this.#truncation;
    this.#finished = true;
    const stdout = this.#streams.stdout.finish();
    const stderr = this.#streams.stderr.finish();
    if (stdout || stderr) {
      this.#truncation = { ...(stdout ? { stdout } : {}), ...(stderr ? { stderr } : {}) };
    }
    return this.#truncation;
  }
}

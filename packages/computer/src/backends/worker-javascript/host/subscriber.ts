/**
 * One reader of an execution's events: replayed events from the journal
 * first, then live ones as they arrive. A highWaterMark-0 stream over an
 * in-memory queue, so a slow reader never holds up the execution (the queue
 * is bounded by the stdio cap).
 */
import type { ExecEvent } from "../../../runtime/types.js";

export class Subscriber {
  readonly stream: ReadableStream<ExecEvent>;
  readonly #queue: ExecEvent[];
  #wake: (() => void) | undefined;
  #ended = false;

  constructor(replay: ExecEvent[], onCancel: (subscriber: Subscriber) => void) {
    this.#queue = [...replay];
    this.stream = new ReadableStream<ExecEvent>(
      {
        pull: async (controller) => {
          while (this.#queue.length === 0 && !this.#ended) {
            await new Promise<void>((resolve) => {
              this.#wake = resolve;
            });
          }
          const next = this.#queue.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
        cancel: () => {
          this.#ended = true;
          this.#queue.length = 0;
          onCancel(this);
        },
      },
      { highWaterMark: 0 },
    );
  }

  push(event: ExecEvent): void {
    if (this.#ended) return;
    this.#queue.push(event);
    this.#signal();
  }

  /** No more events: the stream closes once the queue is read. */
  end(): void {
    this.#ended = true;
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** A stream that fails at once (the subscriber cap), so `getExec` itself still resolves. */
export function failedStream(error: Error): ReadableStream<ExecEvent> {
  return new ReadableStream<ExecEvent>({
    start(controller) {
      controller.error(error);
    },
  });
}

/**
 * The one rule every execution handle enforces (local `ExecHandle` and the
 * remote one rebuilt from a stub): its events are read either as a stream or
 * through `result()`, never both, because both consume the same events.
 */
export type ConsumerMode = "idle" | "stream" | "result";

export interface Consumer {
  readonly id: string;
  mode: ConsumerMode;
}

/** Called on the first stream read; false (with the stream errored) once `result()` took the events. */
export function claimStream(consumer: Consumer, controller: ReadableStreamDefaultController<unknown>): boolean {
  if (consumer.mode === "result") {
    controller.error(
      new TypeError(
        `Execution "${consumer.id}": the stream cannot be read after result() was called; use one or the other`,
      ),
    );
    return false;
  }
  consumer.mode = "stream";
  return true;
}

/** Called by `result()`; throws synchronously (a programming error, not an outcome) once reading started. */
export function claimResult(consumer: Consumer): void {
  if (consumer.mode === "stream") {
    throw new TypeError(
      `Execution "${consumer.id}": result() cannot be called after reading the stream started; use one or the other`,
    );
  }
  consumer.mode = "result";
}

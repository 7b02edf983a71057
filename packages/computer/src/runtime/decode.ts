/**
 * utf8 decoding of an execution's byte events. stdout and stderr each get
 * their own streaming TextDecoder, so a character split across chunks (or
 * interleaved with the other stream) is emitted whole, in the event holding
 * its last byte. Events that decode to "" are dropped.
 *
 * Partial multibyte tails left when the stream exits are flushed (as U+FFFD,
 * the decoder is not fatal) in events placed just before `exit`:
 * stdout at `exit.seq − 0.5`, stderr at `exit.seq − 0.25`. Output seqs are
 * integers below `exit.seq`, so both land between the last output and the exit.
 * If the stream ends with no exit event the tails follow the last event, at
 * `lastSeq + 0.25` and `lastSeq + 0.5`.
 */
import type { ExecEvent, ExecOutputEvent } from "./types.js";

const STDOUT_TAIL_OFFSET = 0.5;
const STDERR_TAIL_OFFSET = 0.25;

export class Utf8EventDecoder {
  readonly #stdout = new TextDecoder("utf-8");
  readonly #stderr = new TextDecoder("utf-8");
  #lastId: string | undefined;
  #lastSeq = 0;
  #ended = false;

  /** Decodes one event; returns the events to emit in its place (possibly none). */
  push(event: ExecEvent): ExecEvent[] {
    this.#lastId = event.id;
    this.#lastSeq = event.seq;
    if (event.name === "exit") {
      this.#ended = true;
      const tails = this.#tails(event.id, event.seq - STDOUT_TAIL_OFFSET, event.seq - STDERR_TAIL_OFFSET);
      return [...tails, event];
    }
    if (typeof event.value === "string") return event.value === "" ? [] : [event];
    const decoder = event.name === "stdout" ? this.#stdout : this.#stderr;
    const value = decoder.decode(event.value, { stream: true });
    return value === "" ? [] : [{ ...event, value }];
  }

  /** Flushes tails when the source ended without an exit event. */
  end(): ExecEvent[] {
    if (this.#ended || this.#lastId === undefined) return [];
    this.#ended = true;
    return this.#tails(this.#lastId, this.#lastSeq + 0.25, this.#lastSeq + 0.5);
  }

  #tails(id: string, stdoutSeq: number, stderrSeq: number): ExecOutputEvent[] {
    const tails: ExecOutputEvent[] = [];
    const stdout = this.#stdout.decode();
    if (stdout !== "") tails.push({ id, seq: stdoutSeq, name: "stdout", value: stdout });
    const stderr = this.#stderr.decode();
    if (stderr !== "") tails.push({ id, seq: stderrSeq, name: "stderr", value: stderr });
    return tails;
  }
}

/**
 * Wraps a byte-event stream as a utf8 one. Pull-based with highWaterMark 0, so
 * nothing is read from `source` before the consumer asks; canceling cancels `source`.
 */
export function decodeUtf8Events(source: ReadableStream<ExecEvent>): ReadableStream<ExecEvent> {
  const decoder = new Utf8EventDecoder();
  const reader = source.getReader();
  return new ReadableStream<ExecEvent>(
    {
      async pull(controller) {
        // Loop until something is enqueued: a chunk holding only part of a character decodes to nothing.
        for (;;) {
          const next = await reader.read();
          if (next.done) {
            for (const event of decoder.end()) controller.enqueue(event);
            controller.close();
            return;
          }
          const events = decoder.push(next.value);
          for (const event of events) controller.enqueue(event);
          if (events.length > 0) return;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

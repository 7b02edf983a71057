/**
 * The exec wire: `WorkspaceExecEvent`s as NDJSON, the original's
 * `encodeExecEvents` / `decodeExecEvents`. Output frames are the runtime
 * wire's (wire.ts); the exit frame carries the exit status as `value`:
 *
 *   {"id","seq","name":"exit","value":<status>}
 *
 * The Workspace's own stubs speak the runtime wire; this one is public for
 * code that moves `WorkspaceExecEvent`s itself, and is byte-for-byte the
 * original's, so either side decodes what the other encoded.
 */
import type { ExecEncoding, WorkspaceExecEvent } from "./types.js";
import { decodeLines, malformed, mapStream, outputEvent, outputFrame, parseFrame } from "./wire.js";

const encoder = new TextEncoder();

/** One event as one line of text, newline included. */
export function encodeExecEventLine(event: WorkspaceExecEvent<ExecEncoding>): string {
  const frame =
    event.name === "exit"
      ? { id: event.id, seq: event.seq, name: "exit", value: event.value }
      : outputFrame(event.id, event.seq, event.name, event.value);
  return `${JSON.stringify(frame)}\n`;
}

/** Parses one line (without its newline); a TypeError names the line and what is wrong. */
export function decodeExecEventLine(text: string, lineNumber = 1): WorkspaceExecEvent<ExecEncoding> {
  const line = parseFrame(text, lineNumber);
  if (line.name !== "exit") return outputEvent(line, lineNumber, text) as WorkspaceExecEvent<ExecEncoding>;
  if (typeof line.value !== "number" || !Number.isInteger(line.value)) {
    throw malformed(lineNumber, "exit value must be an integer", text);
  }
  return { id: line.id, seq: line.seq, name: "exit", value: line.value };
}

/** One line per event; an event is read only when the consumer asks, and canceling cancels `events`. */
export function encodeExecEvents(events: ReadableStream<WorkspaceExecEvent<ExecEncoding>>): ReadableStream<Uint8Array> {
  return mapStream(events, (event) => encoder.encode(encodeExecEventLine(event)));
}

/**
 * NDJSON bytes back into events. Chunk boundaries may fall anywhere; a last
 * line without its newline counts; blank lines are skipped; a malformed line
 * errors the stream after the events before it. `E` says which output values
 * the caller expects (strings from utf8 frames, bytes from b64 ones): the
 * frames decide, as in the original.
 */
export function decodeExecEvents<E extends ExecEncoding>(
  bytes: ReadableStream<Uint8Array>,
): ReadableStream<WorkspaceExecEvent<E>> {
  return decodeLines(bytes, decodeExecEventLine) as ReadableStream<WorkspaceExecEvent<E>>;
}

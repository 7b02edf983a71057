/**
 * The runtime wire: execution events as NDJSON, the bytes a
 * `WorkspaceRuntimeExecHandleStub.stream()` carries over Workers RPC (RPC
 * carries byte streams only, so events are encoded to text and decoded back
 * by the client). One JSON object per line:
 *
 *   {"id","seq","name":"stdout"|"stderr","enc":"utf8"|"b64","value"}
 *   {"id","seq","name":"exit","code","result"?}
 *
 * The same frames as the original's `encodeRuntimeEvent` /
 * `decodeRuntimeEvents`, so either side may talk to the other. Output values
 * keep their type: a string is `enc:"utf8"`, a Uint8Array `enc:"b64"`
 * (base64). Seqs are JSON numbers, so the fractional seqs of flushed decoder
 * tails (decode.ts) survive. Unlike the original, a malformed line is a
 * TypeError naming the line and what is wrong, not a bare JSON.parse error.
 * Runtime-neutral: TextEncoder/TextDecoder, btoa/atob and web streams only.
 */
import type { WorkspaceRuntimeTruncation } from "./output/options.js";
import type { ExecEncoding, ExecEvent, ExecExitEvent, WorkspaceRuntimeEvent, WorkspaceRuntimeValue } from "./types.js";

export type WireEncoding = "utf8" | "b64";

/** One line as it is written; `enc`/`value` on output, `code`/`result` on exit. */
export type RuntimeEventFrame =
  | { id: string; seq: number; name: "stdout" | "stderr"; enc: WireEncoding; value: string }
  | { id: string; seq: number; name: "exit"; code: number; result?: unknown; truncated?: unknown };

/** btoa takes a "binary string"; building it in slices keeps `fromCharCode`'s argument count bounded. */
const BASE64_SLICE = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += BASE64_SLICE) {
    binary += String.fromCharCode(...bytes.subarray(i, i + BASE64_SLICE));
  }
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const encoder = new TextEncoder();

/** One event as one line of text, newline included. */
export function encodeRuntimeEventLine(event: ExecEvent): string {
  let frame: RuntimeEventFrame;
  if (event.name === "exit") {
    frame = { id: event.id, seq: event.seq, name: "exit", code: event.code };
    if (event.result !== undefined) frame.result = event.result;
    if (event.truncated !== undefined) frame.truncated = event.truncated;
  } else {
    frame = outputFrame(event.id, event.seq, event.name, event.value);
  }
  return `${JSON.stringify(frame)}\n`;
}

/** The original's `encodeRuntimeEvent`: one event as one NDJSON line of UTF-8 bytes. */
export function encodeRuntimeEvent(event: WorkspaceRuntimeEvent<ExecEncoding>): Uint8Array {
  return encoder.encode(encodeRuntimeEventLine(event));
}

export function outputFrame(
  id: string,
  seq: number,
  name: "stdout" | "stderr",
  value: string | Uint8Array,
): { id: string; seq: number; name: "stdout" | "stderr"; enc: WireEncoding; value: string } {
  return typeof value === "string"
    ? { id, seq, name, enc: "utf8", value }
    : { id, seq, name, enc: "b64", value: bytesToBase64(value) };
}

/**
 * Parses one line (without its newline) back into an event. Throws a TypeError
 * naming the line number and what is wrong; `lineNumber` is 1-based.
 */
export function decodeRuntimeEventLine(text: string, lineNumber = 1): ExecEvent {
  const line = parseFrame(text, lineNumber);
  const { id, seq, name } = line;
  if (name === "exit") {
    if (typeof line.code !== "number" || !Number.isInteger(line.code)) {
      throw malformed(lineNumber, "exit code must be an integer", text);
    }
    const exit: ExecExitEvent = { id, seq, name, code: line.code };
    if ("result" in line) exit.result = line.result as WorkspaceRuntimeValue;
    // Written by our own encoder from a bound's report; passed on as it came.
    const truncated = line.truncated;
    if (typeof truncated === "object" && truncated !== null && !Array.isArray(truncated)) {
      exit.truncated = truncated as WorkspaceRuntimeTruncation;
    }
    return exit;
  }
  return outputEvent(line, lineNumber, text);
}

/** Encodes an event stream, one chunk per line, reading an event only when the consumer (the RPC pump) asks. */
export function encodeRuntimeEvents(events: ReadableStream<ExecEvent>): ReadableStream<Uint8Array> {
  return mapStream(events, encodeRuntimeEvent);
}

/**
 * The original's `decodeRuntimeEvents`: NDJSON bytes back into events. Chunk
 * boundaries may fall anywhere, inside a line or a character; a last line
 * without its newline still counts; blank lines are skipped. A malformed
 * line errors the stream (and cancels the source) after the events before it.
 */
export function decodeRuntimeEvents(source: ReadableStream<Uint8Array>): ReadableStream<ExecEvent> {
  return decodeLines(source, decodeRuntimeEventLine);
}

/** A parsed line with the fields every frame has checked. */
export interface CheckedFrame extends Record<string, unknown> {
  id: string;
  seq: number;
  name: unknown;
}

export function parseFrame(text: string, lineNumber: number): CheckedFrame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(lineNumber, "not JSON", text);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw malformed(lineNumber, "not an object", text);
  }
  const line = parsed as Record<string, unknown>;
  if (typeof line.id !== "string") throw malformed(lineNumber, "id must be a string", text);
  if (typeof line.seq !== "number" || !Number.isFinite(line.seq)) {
    throw malformed(lineNumber, "seq must be a number", text);
  }
  return line as CheckedFrame;
}

/** An output frame's event: its `value` decoded per `enc`. */
export function outputEvent(
  line: CheckedFrame,
  lineNumber: number,
  text: string,
): { id: string; seq: number; name: "stdout" | "stderr"; value: string | Uint8Array } {
  const { id, seq, name } = line;
  if (name !== "stdout" && name !== "stderr") {
    throw malformed(lineNumber, 'name must be "stdout", "stderr" or "exit"', text);
  }
  if (typeof line.value !== "string") throw malformed(lineNumber, "value must be a string", text);
  if (line.enc === "utf8") return { id, seq, name, value: line.value };
  if (line.enc !== "b64") throw malformed(lineNumber, 'enc must be "utf8" or "b64"', text);
  try {
    return { id, seq, name, value: base64ToBytes(line.value) };
  } catch {
    throw malformed(lineNumber, "value is not base64", text);
  }
}

/** Maps a stream one chunk at a time, pull-based with highWaterMark 0; canceling cancels `source`. */
export function mapStream<T, U>(source: ReadableStream<T>, map: (chunk: T) => U): ReadableStream<U> {
  const reader = source.getReader();
  return new ReadableStream<U>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(map(next.value));
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Splits NDJSON bytes into lines and parses one per pull, so the events before a bad line still get through. */
export function decodeLines<T>(
  bytes: ReadableStream<Uint8Array>,
  parse: (text: string, lineNumber: number) => T,
): ReadableStream<T> {
  const decoder = new TextDecoder("utf-8");
  const reader = bytes.getReader();
  let buffered = "";
  let lineNumber = 0;
  let ended = false;
  const lines: Array<{ text: string; number: number }> = [];

  function splitLines(): void {
    for (let cut = buffered.indexOf("\n"); cut >= 0; cut = buffered.indexOf("\n")) {
      queue(buffered.slice(0, cut));
      buffered = buffered.slice(cut + 1);
    }
    if (ended && buffered !== "") {
      queue(buffered);
      buffered = "";
    }
  }

  function queue(text: string): void {
    lineNumber += 1;
    if (text.trim() !== "") lines.push({ text, number: lineNumber });
  }

  return new ReadableStream<T>(
    {
      async pull(controller) {
        // Read until a whole line is there: a chunk may hold only part of one.
        while (lines.length === 0 && !ended) {
          const next = await reader.read();
          if (next.done) {
            ended = true;
            buffered += decoder.decode();
          } else {
            buffered += decoder.decode(next.value, { stream: true });
          }
          splitLines();
        }
        const line = lines.shift();
        if (line === undefined) {
          controller.close();
          return;
        }
        try {
          controller.enqueue(parse(line.text, line.number));
        } catch (error) {
          if (!ended) await reader.cancel(error).catch(() => {});
          throw error;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

export function malformed(lineNumber: number, reason: string, text: string): TypeError {
  const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return new TypeError(`Malformed exec event on NDJSON line ${lineNumber}: ${reason}: ${preview}`);
}

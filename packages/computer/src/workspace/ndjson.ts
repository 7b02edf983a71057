/**
 * Exec events as NDJSON, the shape a `WorkspaceRuntimeExecHandleStub` streams
 * over Workers RPC: one JSON object per line,
 * `{id,seq,name,enc,value}` for output and `{id,seq,name:"exit",code,result?}`
 * for the exit. Workers RPC carries byte streams only, so events are encoded
 * to text here and decoded back on the client.
 *
 * Output values keep their type across the wire: a string is `enc:"utf8"`, a
 * Uint8Array is `enc:"b64"` (base64). Seqs are JSON numbers, so the fractional
 * seqs of flushed decoder tails (see runtime/decode.ts) survive as they are.
 * Runtime-neutral: only TextEncoder/TextDecoder, btoa/atob and web streams.
 */
import type { ExecEvent, WorkspaceRuntimeValue } from "../runtime/types.js";

export type NdjsonEncoding = "utf8" | "b64";

/** One line as it is written; `enc`/`value` on output, `code`/`result` on exit. */
export type NdjsonExecLine =
  | { id: string; seq: number; name: "stdout" | "stderr"; enc: NdjsonEncoding; value: string }
  | { id: string; seq: number; name: "exit"; code: number; result?: unknown };

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

/** One event as one line, newline included. */
export function encodeExecEvent(event: ExecEvent): string {
  let line: NdjsonExecLine;
  if (event.name === "exit") {
    line = { id: event.id, seq: event.seq, name: "exit", code: event.code };
    if (event.result !== undefined) line.result = event.result;
  } else if (typeof event.value === "string") {
    line = { id: event.id, seq: event.seq, name: event.name, enc: "utf8", value: event.value };
  } else {
    line = { id: event.id, seq: event.seq, name: event.name, enc: "b64", value: bytesToBase64(event.value) };
  }
  return `${JSON.stringify(line)}\n`;
}

/**
 * Parses one line (without its newline) back into an event. Throws a TypeError
 * naming the line number and what is wrong; `lineNumber` is 1-based.
 */
export function decodeExecEventLine(text: string, lineNumber = 1): ExecEvent {
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
  const { id, seq, name } = line;
  if (typeof id !== "string") throw malformed(lineNumber, "id must be a string", text);
  if (typeof seq !== "number" || !Number.isFinite(seq)) throw malformed(lineNumber, "seq must be a number", text);
  if (name === "exit") {
    if (typeof line.code !== "number" || !Number.isInteger(line.code)) {
      throw malformed(lineNumber, "exit code must be an integer", text);
    }
    return "result" in line
      ? { id, seq, name, code: line.code, result: line.result as WorkspaceRuntimeValue }
      : { id, seq, name, code: line.code };
  }
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

/**
 * Encodes an event stream as NDJSON bytes, one line per chunk. Pull-based with
 * highWaterMark 0, so an event is read from `events` only when the consumer
 * (the RPC pump) asks; canceling cancels `events`.
 */
export function encodeExecEvents(events: ReadableStream<ExecEvent>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const reader = events.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(encodeExecEvent(next.value)));
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Decodes NDJSON bytes back into events. Chunk boundaries may fall anywhere,
 * inside a line or a character; a last line without its newline still counts.
 * Blank lines are skipped. A malformed line errors the stream (and cancels the
 * source) with a TypeError saying which line and why.
 */
export function decodeExecEvents(bytes: ReadableStream<Uint8Array>): ReadableStream<ExecEvent> {
  const decoder = new TextDecoder("utf-8");
  const reader = bytes.getReader();
  let buffered = "";
  let lineNumber = 0;
  let ended = false;
  // Lines are split off eagerly but parsed one per pull, so the events before a bad line still get through.
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

  return new ReadableStream<ExecEvent>(
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
          controller.enqueue(decodeExecEventLine(line.text, line.number));
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

function malformed(lineNumber: number, reason: string, text: string): TypeError {
  const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return new TypeError(`Malformed exec event on NDJSON line ${lineNumber}: ${reason}: ${preview}`);
}

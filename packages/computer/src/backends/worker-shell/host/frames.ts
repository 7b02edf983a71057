/**
 * The host's side of the frame protocol (protocol.ts): NDJSON bytes from the
 * `ShellWorker` back into wire events with byte values. Anything malformed
 * errors the stream with EPROTOCOL.
 */
import { rpcError } from "@cloudflare/computer-rpc";
import { base64ToBytes } from "../../../runtime/wire.js";

/** A decoded frame: output as bytes, or the exit code. The original's `ExecEvent` and our `WireExecEvent` both take it. */
export type ShellWireEvent =
  | { id: string; seq: number; name: "stdout" | "stderr"; value: Uint8Array }
  | { id: string; seq: number; name: "exit"; code: number };

function malformed(line: number, why: string): Error {
  return rpcError("EPROTOCOL", "shell.exec", undefined, `malformed shell frame ${line}: ${why}`);
}

/** One line back into an event with byte values. Throws EPROTOCOL on anything else. */
export function decodeFrame(text: string, line: number, encoder: { encode(text: string): Uint8Array }): ShellWireEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(line, "not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw malformed(line, "not an object");
  const frame = parsed as Record<string, unknown>;
  const { id, seq, name } = frame;
  if (typeof id !== "string") throw malformed(line, "id must be a string");
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1)
    throw malformed(line, "seq must be a positive integer");
  if (name === "exit") {
    if (typeof frame.code !== "number" || !Number.isInteger(frame.code))
      throw malformed(line, "code must be an integer");
    return { id, seq, name, code: frame.code };
  }
  if (name !== "stdout" && name !== "stderr") throw malformed(line, 'name must be "stdout", "stderr" or "exit"');
  if (typeof frame.value !== "string") throw malformed(line, "value must be a string");
  if (frame.enc === undefined) return { id, seq, name, value: encoder.encode(frame.value) };
  if (frame.enc !== "b64") throw malformed(line, 'enc must be "b64" when set');
  try {
    return { id, seq, name, value: base64ToBytes(frame.value) };
  } catch {
    throw malformed(line, "value is not base64");
  }
}

/**
 * NDJSON bytes → events. A malformed line errors the stream with EPROTOCOL
 * (and cancels the source); a line split across chunks is joined first.
 */
export function decodeFrames(bytes: ReadableStream<Uint8Array>): ReadableStream<ShellWireEvent> {
  const reader = bytes.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const ready: ShellWireEvent[] = [];
  let buffered = "";
  let line = 0;
  let ended = false;
  const take = (text: string): void => {
    line += 1;
    if (text.trim() !== "") ready.push(decodeFrame(text, line, encoder));
  };
  return new ReadableStream<ShellWireEvent>(
    {
      async pull(controller) {
        try {
          while (ready.length === 0 && !ended) {
            const next = await reader.read();
            if (next.done) {
              ended = true;
              buffered += decoder.decode();
              if (buffered !== "") take(buffered);
              buffered = "";
              break;
            }
            buffered += decoder.decode(next.value, { stream: true });
            for (let cut = buffered.indexOf("\n"); cut >= 0; cut = buffered.indexOf("\n")) {
              take(buffered.slice(0, cut));
              buffered = buffered.slice(cut + 1);
            }
          }
        } catch (error) {
          await reader.cancel(error).catch(() => {});
          controller.error(error);
          return;
        }
        const event = ready.shift();
        if (event) controller.enqueue(event);
        else controller.close();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Builders shared by the runtime tests. */
import type { ExecEvent, WorkspaceRuntimeValue } from "../src/runtime/types.js";

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export function out(seq: number, value: Uint8Array | string, id = "x"): ExecEvent {
  return { id, seq, name: "stdout", value };
}

export function err(seq: number, value: Uint8Array | string, id = "x"): ExecEvent {
  return { id, seq, name: "stderr", value };
}

export function exit(seq: number, code: number, result?: WorkspaceRuntimeValue, id = "x"): ExecEvent {
  return result === undefined ? { id, seq, name: "exit", code } : { id, seq, name: "exit", code, result };
}

/** Each byte of `text` as its own Uint8Array: the worst possible chunking. */
export function byteByByte(text: string): Uint8Array[] {
  return [...bytes(text)].map((byte) => Uint8Array.of(byte));
}

export interface Source {
  stream: ReadableStream<ExecEvent>;
  /** How many events the consumer pulled. */
  pulled(): number;
  /** The reason the stream was canceled with, or "not canceled". */
  canceled(): unknown;
}

/** A pull-based source that records how it is consumed. */
export function sourceOf(events: ExecEvent[]): Source {
  let index = 0;
  let cancelReason: unknown = "not canceled";
  const stream = new ReadableStream<ExecEvent>(
    {
      pull(controller) {
        const event = events[index++];
        if (event === undefined) controller.close();
        else controller.enqueue(event);
      },
      cancel(reason) {
        cancelReason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => index, canceled: () => cancelReason };
}

export async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const all: T[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) return all;
    all.push(next.value);
  }
}

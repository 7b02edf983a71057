/**
 * A direct backend whose "program" is the event list itself: `exec(source)`
 * parses `source` as JSON `[{ "name": "stdout" | "stderr", "text"?: string,
 * "bytes"?: number[] } | { "name": "exit", "code": number, "result"?: unknown }]`
 * and emits those events with seqs 1, 2, 3, …, output as bytes. Lets the RPC
 * tests choose exact byte boundaries (a split UTF-8 character, a dangling
 * lead byte) that no real shell command pins down.
 */
import type { DirectBackend, DirectExec } from "../src/runtime/backend.js";
import type { ExecEvent, WorkspaceRuntimeValue } from "../src/runtime/types.js";

type Step =
  | { name: "stdout" | "stderr"; text?: string; bytes?: number[] }
  | { name: "exit"; code: number; result?: WorkspaceRuntimeValue };

export class ScriptedBackend implements DirectBackend {
  readonly kind = "direct";
  readonly type = "scripted";
  readonly callable = true;
  readonly #runs = new Map<string, ExecEvent[]>();

  constructor(readonly id = "scripted") {}

  async exec(source: string, request: { id: string }): Promise<DirectExec> {
    const steps = JSON.parse(source) as Step[];
    const events = steps.map((step, index): ExecEvent => {
      const seq = index + 1;
      if (step.name === "exit") {
        return step.result === undefined
          ? { id: request.id, seq, name: "exit", code: step.code }
          : { id: request.id, seq, name: "exit", code: step.code, result: step.result };
      }
      const value = step.bytes ? Uint8Array.from(step.bytes) : new TextEncoder().encode(step.text ?? "");
      return { id: request.id, seq, name: step.name, value };
    });
    this.#runs.set(request.id, events);
    return { id: request.id, events: streamOf(events) };
  }

  async getExec(id: string, options: { after?: number | "tail" }): Promise<DirectExec> {
    const events = this.#runs.get(id);
    if (!events) throw new Error(`ENOENT: no such execution, getExec: ${id}`);
    const after = options.after === "tail" ? Number.POSITIVE_INFINITY : (options.after ?? 0);
    return { id, events: streamOf(events.filter((event) => event.seq > after)) };
  }

  async killExec(): Promise<void> {}

  async disposeExec(id: string): Promise<void> {
    this.#runs.delete(id);
  }
}

function streamOf(events: ExecEvent[]): ReadableStream<ExecEvent> {
  let index = 0;
  return new ReadableStream<ExecEvent>(
    {
      pull(controller) {
        const event = events[index++];
        if (event === undefined) controller.close();
        else controller.enqueue(event);
      },
    },
    { highWaterMark: 0 },
  );
}

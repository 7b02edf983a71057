/**
 * A stand-in for computerd's runner behind the real `RunnerLike` interface
 * (the runner is another package's process; here only the wire is under
 * test). `source` is not run: `print <text>` writes text to stdout then exits
 * 0; `forever` writes until its stream is canceled. Ids named after a wire
 * code fail with it.
 */
import { rpcError } from "../src/errors.js";
import type {
  DisposeExecRequest,
  ExecEvent,
  ExecHeartbeatEvent,
  ExecRequest,
  GetExecRequest,
  KillExecRequest,
  RunnerHandle,
  RunnerLike,
} from "../src/types.js";

export class FakeRunner implements RunnerLike {
  /** Requests as the runner received them. */
  readonly execs: Omit<ExecRequest, "input">[] = [];
  readonly kills: KillExecRequest[] = [];
  /** Why each `forever` stream was canceled, by id. */
  readonly canceled = new Map<string, unknown>();
  readonly #finished = new Map<string, (ExecEvent | ExecHeartbeatEvent)[]>();
  #next = 0;

  exec(request: Omit<ExecRequest, "input">): RunnerHandle {
    this.execs.push(request);
    const id = request.id ?? `exec-${++this.#next}`;
    if (id === "EEXEC_BUSY") throw rpcError("EEXEC_BUSY", "exec", id);
    if (request.source === "forever") return { id, events: this.#forever(id) };
    const text = request.source.startsWith("print ") ? request.source.slice("print ".length) : "";
    const events: (ExecEvent | ExecHeartbeatEvent)[] = [
      { id, seq: 1, name: "heartbeat" },
      { id, seq: 2, name: "stdout", value: new TextEncoder().encode(text) },
      { id, seq: 3, name: "heartbeat" },
      { id, seq: 4, name: "exit", code: 0 },
    ];
    this.#finished.set(id, events);
    return { id, events: streamOf(events) };
  }

  getExec(request: GetExecRequest): RunnerHandle {
    if (request.id === "ELOG_TRUNCATED") throw rpcError("ELOG_TRUNCATED", "getExec", request.id);
    if (request.id === "truncated-mid-stream") {
      const id = request.id;
      let sent = 0;
      return {
        id,
        events: new ReadableStream<ExecEvent>(
          {
            pull(controller) {
              if (sent++ === 0) controller.enqueue({ id, seq: 1, name: "stdout", value: new Uint8Array([104, 105]) });
              else controller.error(rpcError("ELOG_TRUNCATED", "getExec", id));
            },
          },
          { highWaterMark: 0 },
        ),
      };
    }
    const events = this.#finished.get(request.id);
    if (events === undefined) throw rpcError("ENOENT", "getExec", request.id, "no such exec");
    const after = request.after === "tail" ? Number.POSITIVE_INFINITY : (request.after ?? 0);
    return { id: request.id, events: streamOf(events.filter((event) => event.seq > after)) };
  }

  killExec(request: KillExecRequest): void {
    this.kills.push(request);
    if (!this.#finished.has(request.id)) throw rpcError("ENOENT", "killExec", request.id, "no such exec");
  }

  async disposeExec(request: DisposeExecRequest): Promise<void> {
    this.#finished.delete(request.id);
  }

  #forever(id: string): ReadableStream<ExecEvent> {
    let seq = 0;
    const canceled = this.canceled;
    return new ReadableStream<ExecEvent>(
      {
        pull(controller) {
          controller.enqueue({ id, seq: ++seq, name: "stdout", value: new Uint8Array(1024) });
        },
        cancel(reason) {
          canceled.set(id, reason);
        },
      },
      { highWaterMark: 0 },
    );
  }
}

function streamOf<T>(items: T[]): ReadableStream<T> {
  let next = 0;
  return new ReadableStream<T>({
    pull(controller) {
      const item = items[next++];
      if (item === undefined) controller.close();
      else controller.enqueue(item);
    },
  });
}

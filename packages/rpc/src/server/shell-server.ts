import { RpcTarget } from "capnweb";
import { rpcError } from "../errors.js";
import { checkExecRequest } from "../exec-request.js";
import type {
  DisposeExecRequest,
  ExecEvent,
  ExecHandle,
  ExecRequest,
  GetExecRequest,
  KillExecRequest,
  RunnerHandle,
  RunnerLike,
  ShellRPC,
} from "../types.js";
import { checkObject, checkString } from "./validate.js";

/**
 * Serves a computerd runner as `WorkspaceRPC.shell`: validates requests,
 * drops `input` (only callable backends take it) and heartbeat events, and
 * otherwise forwards. Runner errors (ENOENT, EEXEC_BUSY, ELOG_TRUNCATED) pass
 * through with their code.
 */
export function createShellServer(runner: RunnerLike): RpcTarget & ShellRPC {
  return new ShellServer(runner);
}

class ShellServer extends RpcTarget implements ShellRPC {
  readonly #runner: RunnerLike;
  /** Event streams handed out and not yet finished: a closed session must let go of its subscriptions. */
  readonly #open = new Set<ReadableStreamDefaultReader<unknown>>();

  constructor(runner: RunnerLike) {
    super();
    this.#runner = runner;
  }

  async exec(request: ExecRequest): Promise<ExecHandle> {
    checkExecRequest(request, "exec");
    const { input: _input, ...rest } = request;
    return toWire(await this.#runner.exec(rest), this.#open);
  }

  async getExec(request: GetExecRequest): Promise<ExecHandle> {
    checkObject(request, "getExec", "request");
    checkString(request.id, "getExec", "id");
    const after = request.after;
    if (after !== undefined && after !== "tail" && !(Number.isSafeInteger(after) && after >= 0)) {
      throw rpcError("EPROTOCOL", "getExec", request.id, 'after must be a seq number or "tail"');
    }
    return toWire(await this.#runner.getExec(request), this.#open);
  }

  async killExec(request: KillExecRequest): Promise<void> {
    checkObject(request, "killExec", "request");
    checkString(request.id, "killExec", "id");
    if (request.signal !== undefined) checkString(request.signal, "killExec", "signal");
    await this.#runner.killExec(request);
  }

  async disposeExec(request: DisposeExecRequest): Promise<void> {
    checkObject(request, "disposeExec", "request");
    checkString(request.id, "disposeExec", "id");
    await this.#runner.disposeExec(request);
  }

  /**
   * Cancels every stream this session still holds, detaching its subscribers
   * (the executions keep running). A peer that vanished without canceling —
   * a Durable Object that restarted — would otherwise hold its executions'
   * single subscriber slot and make the next `getExec` fail with EEXEC_BUSY.
   */
  [Symbol.dispose](): void {
    for (const reader of this.#open) reader.cancel(new Error("session closed")).catch(() => {});
    this.#open.clear();
  }
}

/**
 * Filters heartbeats with a pull-through stream (no buffer of its own), so the
 * runner's backpressure (`desiredSize`) still reflects the wire, and a cancel
 * from the caller reaches the runner.
 */
function toWire(handle: RunnerHandle, open: Set<ReadableStreamDefaultReader<unknown>>): ExecHandle {
  const reader = handle.events.getReader();
  open.add(reader);
  const events = new ReadableStream<ExecEvent>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            open.delete(reader);
            controller.close();
            return;
          }
          if (value.name !== "heartbeat") {
            controller.enqueue(value);
            return;
          }
        }
      },
      cancel(reason) {
        open.delete(reader);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { id: handle.id, events };
}

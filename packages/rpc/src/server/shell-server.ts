import { RpcTarget } from "capnweb";
import { rpcError } from "../errors.js";
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

  constructor(runner: RunnerLike) {
    super();
    this.#runner = runner;
  }

  async exec(request: ExecRequest): Promise<ExecHandle> {
    checkObject(request, "exec", "request");
    checkString(request.source, "exec", "source");
    if (request.id !== undefined) checkString(request.id, "exec", "id");
    if (request.cwd !== undefined) checkString(request.cwd, "exec", "cwd");
    const { input: _input, ...rest } = request;
    return toWire(await this.#runner.exec(rest));
  }

  async getExec(request: GetExecRequest): Promise<ExecHandle> {
    checkObject(request, "getExec", "request");
    checkString(request.id, "getExec", "id");
    const after = request.after;
    if (after !== undefined && after !== "tail" && !(Number.isSafeInteger(after) && after >= 0)) {
      throw rpcError("EPROTOCOL", "getExec", request.id, 'after must be a seq number or "tail"');
    }
    return toWire(await this.#runner.getExec(request));
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
}

/**
 * Filters heartbeats with a pull-through stream (no buffer of its own), so the
 * runner's backpressure (`desiredSize`) still reflects the wire, and a cancel
 * from the caller reaches the runner.
 */
function toWire(handle: RunnerHandle): ExecHandle {
  const reader = handle.events.getReader();
  const events = new ReadableStream<ExecEvent>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
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
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { id: handle.id, events };
}

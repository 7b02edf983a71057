/**
 * The client's face over a capnweb stub: one plain async function per wire
 * verb. Each call is timed for `onRPCEvent`; every failure, of the call or of
 * a stream it returned, is normalized: error classes are rebuilt
 * (`decodeWireError`) and a failure caused by the connection going away is
 * `ESHUTDOWN` (capnweb itself reports a broken stream as a plain Error).
 *
 * Results are not disposed: a result's capnweb disposer also cancels any
 * ReadableStream inside it (fetchChanges' `stream`, exec `events`), and
 * results without stubs hold nothing on either side once resolved.
 */

import type { SyncRPC } from "@cloudflare/dofs/sync";
import { decodeWireError, WorkspaceRpcError } from "../errors.js";
import type { RpcEvent, ShellRPC } from "../types.js";

export const SYNC_METHODS = [
  "push",
  "fetchChanges",
  "watermarks",
  "readEntry",
  "hasObjects",
  "fetchObjects",
  "pushObjects",
] as const satisfies readonly (keyof SyncRPC)[];

export const SHELL_METHODS = [
  "exec",
  "getExec",
  "killExec",
  "disposeExec",
] as const satisfies readonly (keyof ShellRPC)[];

// Compile-time: a verb added to SyncRPC or ShellRPC must be listed above.
const everySyncMethod: Exclude<keyof SyncRPC, (typeof SYNC_METHODS)[number]> extends never ? true : never = true;
const everyShellMethod: Exclude<keyof ShellRPC, (typeof SHELL_METHODS)[number]> extends never ? true : never = true;
void everySyncMethod;
void everyShellMethod;

export interface ConnectionState {
  onRPCEvent?: ((event: RpcEvent) => void) | undefined;
  /** True once `close()` was called: calls fail with ESHUTDOWN without touching the socket. */
  isClosed(): boolean;
  /** False once the socket closed or capnweb aborted the session. */
  isOpen(): boolean;
}

export function instrument<T extends object>(
  stub: unknown,
  service: string,
  methods: readonly (keyof T & string)[],
  state: ConnectionState,
): T {
  const target = stub as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const client: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of methods) {
    const rpc = `${service}.${method}`;
    client[method] = async (...args) => {
      if (state.isClosed())
        throw new WorkspaceRpcError("ESHUTDOWN", rpc, undefined, { detail: "the client is closed" });
      const started = performance.now();
      try {
        const result = guardStreams(await target[method]?.(...args), rpc, state);
        report(state, { rpc, durationMs: performance.now() - started, ok: true });
        return result;
      } catch (error) {
        const failure = normalize(error, rpc, state);
        const code = (failure as { code?: unknown })?.code;
        report(state, {
          rpc,
          durationMs: performance.now() - started,
          ok: false,
          ...(typeof code === "string" ? { code } : {}),
        });
        throw failure;
      }
    };
  }
  return client as T;
}

function normalize(error: unknown, rpc: string, state: ConnectionState): unknown {
  if (state.isClosed()) {
    return new WorkspaceRpcError("ESHUTDOWN", rpc, undefined, { detail: "the client is closed", cause: error });
  }
  const decoded = decodeWireError(error);
  if (typeof (decoded as { code?: unknown })?.code === "string" || state.isOpen()) return decoded;
  return new WorkspaceRpcError("ESHUTDOWN", rpc, undefined, { detail: "the connection closed", cause: error });
}

/** Wraps a returned stream, or a stream property of a returned object (`stream`, `events`). */
function guardStreams(result: unknown, rpc: string, state: ConnectionState): unknown {
  if (result instanceof ReadableStream) return guard(result, rpc, state);
  if (typeof result !== "object" || result === null) return result;
  const fields = result as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value instanceof ReadableStream) fields[key] = guard(value, rpc, state);
  }
  return result;
}

/** A pull-through copy (no buffer of its own) whose errors are normalized; cancel reaches the source. */
function guard<T>(source: ReadableStream<T>, rpc: string, state: ConnectionState): ReadableStream<T> {
  const reader = source.getReader();
  return new ReadableStream<T>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(normalize(error, rpc, state));
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function report(state: ConnectionState, event: RpcEvent): void {
  try {
    state.onRPCEvent?.(event);
  } catch {
    // An observer's failure must not change the call's outcome.
  }
}

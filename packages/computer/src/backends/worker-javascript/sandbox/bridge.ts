/**
 * Runs inside the Dynamic Worker (bundled to `__computer/bridge.js`). The one
 * place the trusted modules (`node:fs/promises`, `ws:git`, …) reach the host
 * through: the runner stores the host function here, and every call goes out
 * as `{ op: "call", module, method, args }`. Errors come back as data and are
 * rebuilt with their `code`, because Workers RPC keeps only an error's message.
 */
import type { CapabilityErrorShape, CapabilityReply, HostFunction } from "../protocol/messages.js";

let host: HostFunction | undefined;

export function setHost(fn: HostFunction): void {
  host = fn;
}

export function rebuildError(shape: CapabilityErrorShape): Error {
  const error = new Error(shape.message) as Error & { code?: string; syscall?: string; path?: string };
  error.name = shape.name === "WorkspaceFsError" ? "Error" : shape.name;
  if (shape.code !== undefined) error.code = shape.code;
  if (shape.syscall !== undefined) error.syscall = shape.syscall;
  if (shape.path !== undefined) error.path = shape.path;
  return error;
}

export async function call(module: string, method: string, args: unknown[]): Promise<unknown> {
  if (!host) throw new Error(`${module}.${method}: the runner is not attached to its Workspace`);
  const reply = (await host({ op: "call", module, method, args })) as CapabilityReply;
  if (!reply.ok) throw rebuildError(reply.error);
  return reply.value;
}

/** A function of a host-defined `ws:<name>` module: one JSON argument in, one value out. */
export function trusted(module: string, method: string): (input?: unknown) => Promise<unknown> {
  return (input) => call(module, method, input === undefined ? [] : [input]);
}

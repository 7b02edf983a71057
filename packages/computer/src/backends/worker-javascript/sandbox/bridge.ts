/**
 * Runs inside the Dynamic Worker (bundled to `__computer/bridge.js`). The one
 * place the trusted modules (`node:fs/promises`, `ws:git`, …) reach the host
 * through: the runner stores the host function here, and every call goes out
 * as `{ op: "call", module, method, args }`. Errors come back as data (dofs'
 * one error shape) and are built back with `fromShape`, fields and all.
 */
import { fromShape } from "../protocol/errors.js";
import type { CapabilityErrorShape, CapabilityReply, HostFunction } from "../protocol/messages.js";

let host: HostFunction | undefined;

export function setHost(fn: HostFunction): void {
  host = fn;
}

/**
 * The error a capability call failed with, as the module sees it. A
 * filesystem error is a plain `Error` with Node's fields, as `node:fs`
 * throws; a `TypeError` stays one.
 */
export function rebuildError(shape: CapabilityErrorShape): Error {
  return fromShape(shape.name === "WorkspaceFsError" ? { ...shape, name: "Error" } : shape);
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

/**
 * Argument checks for the server's thin public layer: malformed requests
 * fail with EPROTOCOL before they reach a peer or a runner.
 */
import { rpcError } from "../errors.js";

export function checkObject(value: unknown, rpc: string, what: string): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null)
    throw rpcError("EPROTOCOL", rpc, undefined, `${what} must be an object`);
}

export function checkString(value: unknown, rpc: string, what: string): asserts value is string {
  if (typeof value !== "string") throw rpcError("EPROTOCOL", rpc, undefined, `${what} must be a string`);
}

/**
 * Cancels a stream argument the callee left unread (it failed before or while
 * reading). Without this capnweb keeps pulling the caller's source until its
 * flow-control window is full, and the caller's pipe never finishes.
 */
export function releaseStream(stream: ReadableStream<unknown>, rpc: string): void {
  if (stream.locked) return;
  stream.cancel(`${rpc} returned before reading the whole stream`).catch(() => {});
}

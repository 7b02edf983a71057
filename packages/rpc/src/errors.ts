/**
 * Wire errors. capnweb (0.12) sends an Error as name + message + its own
 * enumerable properties, so `code`, `path` and `syscall` cross by themselves;
 * what it drops is the class (every error arrives as a plain `Error`).
 * `encodeWireError` (the sessions' `onSendError`) adds the class name as
 * `errorClass`, and `decodeWireError` (applied by the clients to every failed
 * call) turns the plain Error back into a `WorkspaceRpcError` or dofs'
 * `WorkspaceFsError`, with the message unchanged.
 */
import { errorMessage, FS_ERROR_CODES, type FsErrorCode, WorkspaceFsError } from "@cloudflare/dofs";

/** Every code a `WorkspaceRpcError` can carry. The last three are reserved for the transport. */
export const WIRE_ERROR_CODES = {
  ENOENT: "no such file or directory",
  EUNKNOWN_HASH: "unknown object hash",
  EEXEC_BUSY: "exec is busy",
  ELOG_TRUNCATED: "exec log truncated",
  ESHUTDOWN: "server is shutting down",
  EAUTH: "authentication required",
  EPROTOCOL: "protocol error",
} as const satisfies Record<string, string>;

export type WireErrorCode = keyof typeof WIRE_ERROR_CODES;

/** The one error class of this package. Messages keep Node's shape (`EEXEC_BUSY: exec is busy, exec '42'`). */
export class WorkspaceRpcError extends Error {
  override readonly name = "WorkspaceRpcError";
  readonly code: WireErrorCode;
  /** What the error is about: an exec id, a hash in hex, a path. */
  readonly path: string | undefined;
  /** The RPC that failed, as in Node's `syscall`. */
  readonly syscall: string | undefined;

  constructor(code: WireErrorCode, syscall?: string, path?: string, options?: { cause?: unknown; detail?: string }) {
    super(
      errorMessage(code, options?.detail ?? WIRE_ERROR_CODES[code], syscall, path),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.path = path;
    this.syscall = syscall;
  }
}

/** The one factory; servers and runners throw through it. */
export function rpcError(code: WireErrorCode, syscall: string, path?: string, detail?: string): WorkspaceRpcError {
  return new WorkspaceRpcError(code, syscall, path, detail === undefined ? undefined : { detail });
}

export function isWireErrorCode(code: unknown): code is WireErrorCode {
  return typeof code === "string" && Object.hasOwn(WIRE_ERROR_CODES, code);
}

export function isRpcError(error: unknown, code?: WireErrorCode): error is WorkspaceRpcError {
  return error instanceof WorkspaceRpcError && (code === undefined || error.code === code);
}

type WireFields = Error & { code?: unknown; path?: unknown; syscall?: unknown; errorClass?: unknown };

/**
 * A capnweb `onSendError` hook. An error with a string `code` is sent as a
 * copy carrying its own properties plus `errorClass` (its name), without the
 * stack; any other error gets capnweb's default (name and message).
 */
export function encodeWireError(error: Error): Error | undefined {
  const source = error as WireFields;
  if (typeof source.code !== "string") return undefined;
  const wire = new Error(error.message) as WireFields & Record<string, unknown>;
  for (const key of Object.keys(error)) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (key !== "name" && value !== undefined) wire[key] = value;
  }
  if (error.cause !== undefined) wire.cause = error.cause;
  wire.errorClass = error.name;
  // capnweb sends the stack of a substituted error when it has one; we never do.
  wire.stack = undefined;
  return wire;
}

/**
 * Rebuilds the class of an error received over capnweb. Codes outside both
 * tables, and errors without a code, come back unchanged (`code` is still set).
 */
export function decodeWireError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof WorkspaceRpcError || error instanceof WorkspaceFsError) {
    return error;
  }
  const wire = error as WireFields;
  const code = wire.code;
  const syscall = typeof wire.syscall === "string" ? wire.syscall : undefined;
  const path = typeof wire.path === "string" ? wire.path : undefined;
  const options = error.cause === undefined ? undefined : { cause: error.cause };
  let decoded: Error;
  if (wire.errorClass === "WorkspaceFsError" && typeof code === "string" && Object.hasOwn(FS_ERROR_CODES, code)) {
    decoded = new WorkspaceFsError(code as FsErrorCode, syscall, path, options);
  } else if (isWireErrorCode(code)) {
    decoded = new WorkspaceRpcError(code, syscall, path, options);
  } else {
    return error;
  }
  decoded.message = error.message;
  return decoded;
}

/**
 * Wire errors. capnweb (0.12) sends an Error as name + message + its own
 * enumerable properties, and drops the class (every error arrives as a plain
 * `Error`). Both directions go through dofs' one error shape:
 * `encodeWireError` (the sessions' `onSendError`) sends an error's shape as
 * own properties plus `errorClass` (its class name), and `decodeWireError`
 * (applied by the clients to every failed call) builds the class back from
 * that shape with `fromShape`: a `WorkspaceRpcError` or dofs'
 * `WorkspaceFsError`, message unchanged. The message text is never parsed.
 */
import {
  type ErrorRebuilder,
  errorMessage,
  fromShape,
  rebuildWorkspaceFsError,
  toShape,
  WorkspaceFsError,
} from "@cloudflare/dofs";

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

/** This package's class, for a shape that names it with one of its codes. */
export const rebuildWorkspaceRpcError: ErrorRebuilder = (shape) =>
  shape.name === "WorkspaceRpcError" && isWireErrorCode(shape.code)
    ? new WorkspaceRpcError(shape.code, shape.syscall, shape.path)
    : undefined;

/**
 * A capnweb `onSendError` hook. An error with a string `code` is sent as a
 * copy carrying its shape's fields as own properties plus `errorClass` (its
 * name), without the stack; any other error gets capnweb's default (name and
 * message).
 */
export function encodeWireError(error: Error): Error | undefined {
  if (typeof (error as Error & { code?: unknown }).code !== "string") return undefined;
  const { name, message, data, ...fields } = toShape(error);
  const wire = Object.assign(new Error(message), data, fields, { errorClass: name });
  if (error.cause !== undefined) wire.cause = error.cause;
  // capnweb sends the stack of a substituted error when it has one; we never do.
  wire.stack = undefined;
  return wire;
}

/**
 * Rebuilds the class of an error received over capnweb from its shape, dofs'
 * class first (the two tables share ENOENT and EUNKNOWN_HASH). An error with
 * a code outside both tables comes back as an `Error` with its sender's class
 * name and every field; an error without a code comes back unchanged.
 */
export function decodeWireError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof WorkspaceRpcError || error instanceof WorkspaceFsError) {
    return error;
  }
  const errorClass = (error as Error & { errorClass?: unknown }).errorClass;
  const shape = { ...toShape(error), ...(typeof errorClass === "string" ? { name: errorClass } : {}) };
  if (shape.code === undefined) return error;
  // Any other error with a wire code was thrown by a runner as this package's error (the class is what capnweb drops).
  const rebuilt = rebuildWorkspaceFsError(shape) ?? rebuildWorkspaceRpcError({ ...shape, name: "WorkspaceRpcError" });
  // Another package's class (WorkspaceError, GitError, …) comes back as an Error with its name and fields.
  const decoded = fromShape(shape, rebuilt === undefined ? [] : [() => rebuilt]);
  if (error.cause !== undefined) {
    Object.defineProperty(decoded, "cause", { value: error.cause, writable: true, configurable: true });
  }
  return decoded;
}

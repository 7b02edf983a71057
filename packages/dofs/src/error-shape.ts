/**
 * The one serialized shape of an error, for every boundary an error crosses:
 * Workers RPC, capnweb, the sandbox bridge of a Dynamic Worker, JSON over
 * HTTP. `toShape` reads it off any error and `fromShape` builds the error
 * back, class included, so a receiver branches on `.code` as the sender did.
 * Nothing is ever read back out of the message text: the message travels as
 * it was and the fields travel beside it.
 *
 * The shape is plain data (strings, numbers, a flat `data` record), so it
 * survives structured clone and JSON alike. A package whose error class is
 * not this package's (rpc's `WorkspaceRpcError`) passes a rebuilder.
 */
import { FS_ERROR_CODES, type FsErrorCode, WorkspaceFsError } from "./errors.js";

/** Extra own fields of an error, kept when their values are primitives. */
export type ErrorShapeData = Readonly<Record<string, string | number | boolean | null>>;

export interface ErrorShape {
  /** The class name: `WorkspaceFsError`, `WorkspaceRpcError`, `TypeError`, `Error`, … */
  readonly name: string;
  /** The message, exactly. */
  readonly message: string;
  /** Node's `code`: `ENOENT`, `EEXEC_BUSY`, … */
  readonly code?: string;
  /** Node's `errno` (negative), when the error had one. */
  readonly errno?: number;
  /** The operation that failed. */
  readonly syscall?: string;
  readonly path?: string;
  /** The second path of a two-path call. */
  readonly dest?: string;
  readonly data?: ErrorShapeData;
}

/** Builds the error of one class from a shape, or answers undefined when the shape is not its class. */
export type ErrorRebuilder = (shape: ErrorShape) => Error | undefined;

const STRING_FIELDS = ["code", "syscall", "path", "dest"] as const;
/**
 * Own properties that are the shape's own fields or never cross (the stack,
 * the cause, a transport's tag), and `__proto__`, which a JSON body can carry
 * as a key but an error must not take as its prototype.
 */
const NOT_DATA = new Set<string>([
  "name",
  "message",
  "stack",
  "cause",
  "errno",
  "errorClass",
  "__proto__",
  ...STRING_FIELDS,
]);

type Fields = Partial<Record<(typeof STRING_FIELDS)[number], unknown>> & { errno?: unknown };

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** The shape of any thrown value; a non-Error becomes an `Error` whose message is its text. */
export function toShape(error: unknown): ErrorShape {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields = error as Error & Fields;
  const shape: { -readonly [K in keyof ErrorShape]: ErrorShape[K] } = {
    name: typeof error.name === "string" ? error.name : "Error",
    message: error.message,
  };
  for (const key of STRING_FIELDS) {
    const value = fields[key];
    if (typeof value === "string") shape[key] = value;
  }
  if (typeof fields.errno === "number") shape.errno = fields.errno;
  const data: Record<string, string | number | boolean | null> = {};
  let any = false;
  for (const key of Object.keys(error)) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (NOT_DATA.has(key) || !isPrimitive(value)) continue;
    data[key] = value;
    any = true;
  }
  if (any) shape.data = data;
  return shape;
}

const STANDARD: Readonly<Record<string, new (message?: string) => Error>> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/** dofs' own class, for a shape that names it with one of its codes. */
export const rebuildWorkspaceFsError: ErrorRebuilder = (shape) => {
  if (shape.name !== "WorkspaceFsError" || shape.code === undefined || !Object.hasOwn(FS_ERROR_CODES, shape.code)) {
    return undefined;
  }
  return new WorkspaceFsError(
    shape.code as FsErrorCode,
    shape.syscall,
    shape.path,
    shape.dest === undefined ? undefined : { dest: shape.dest },
  );
};

function plainError(shape: ErrorShape): Error {
  const Standard = Object.hasOwn(STANDARD, shape.name) ? STANDARD[shape.name] : undefined;
  // Built with its message, so the stack's first line reads as the sender's did.
  const error = Standard ? new Standard(shape.message) : new Error(shape.message);
  if (error.name !== shape.name) {
    Object.defineProperty(error, "name", { value: shape.name, writable: true, configurable: true });
  }
  const fields = error as Error & Fields;
  for (const key of STRING_FIELDS) if (shape[key] !== undefined) fields[key] = shape[key];
  return error;
}

/**
 * The error a shape describes: the first rebuilder that knows its class,
 * else dofs' `WorkspaceFsError`, else a standard error (`TypeError`, …, or an
 * `Error` with the shape's name) carrying the fields as own properties. The
 * message is always the shape's, exactly; `errno` and `data` come back as own
 * properties.
 */
export function fromShape(shape: ErrorShape, rebuilders: readonly ErrorRebuilder[] = []): Error {
  let error: Error | undefined;
  for (const rebuild of rebuilders) {
    error = rebuild(shape);
    if (error) break;
  }
  error ??= rebuildWorkspaceFsError(shape) ?? plainError(shape);
  if (error.message !== shape.message) {
    Object.defineProperty(error, "message", { value: shape.message, writable: true, configurable: true });
  }
  const target = error as unknown as Record<string, unknown>;
  if (shape.errno !== undefined) target.errno = shape.errno;
  for (const [key, value] of Object.entries(shape.data ?? {})) if (!NOT_DATA.has(key)) target[key] = value;
  return error;
}

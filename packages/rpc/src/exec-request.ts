/**
 * The one check of an exec request. Three ends read the same fields: the
 * public runtime (`workspace.runtime.exec`), the shell server of this package
 * and computerd's runner. Each calls this module and only maps the problem it
 * returns to its own error (a TypeError in the runtime, EPROTOCOL on the
 * wire), so a request one end accepts is never refused by another for a
 * reason the first did not see.
 */
import { rpcError, type WorkspaceRpcError } from "./errors.js";

/** Ids key the exec→runtime map and computerd's log; 256 UTF-8 bytes bounds both. */
export const MAX_EXEC_ID_BYTES = 256;

export type ExecRequestField = "request" | "id" | "source" | "cwd" | "env" | "stdin" | "timeoutMs";

/** Why a field was refused; `detail` is the wire's wording, the rest lets an end word it its own way. */
export interface ExecRequestProblem {
  readonly field: ExecRequestField;
  readonly reason: "type" | "empty" | "too-long" | "control" | "nul" | "relative" | "name" | "value-type" | "range";
  readonly detail: string;
  /** The refused value as it was given (for an env entry, its value). */
  readonly value: unknown;
  /** For `too-long`: the id's UTF-8 length. */
  readonly bytes?: number;
  /** For an env entry: its name. */
  readonly key?: string;
}

const utf8 = new TextEncoder();

function problem(
  field: ExecRequestField,
  reason: ExecRequestProblem["reason"],
  detail: string,
  value: unknown,
  extra: { bytes?: number; key?: string } = {},
): ExecRequestProblem {
  return { field, reason, detail, value, ...extra };
}

/**
 * An execution id: a string of 1 to MAX_EXEC_ID_BYTES UTF-8 bytes without
 * control characters (a NUL or a newline in an id would be stored, logged and
 * echoed back as given).
 */
export function execIdProblem(id: unknown): ExecRequestProblem | undefined {
  const detail = `execution id must be a string of 1 to ${MAX_EXEC_ID_BYTES} UTF-8 bytes without control characters`;
  if (typeof id !== "string") return problem("id", "type", detail, id);
  if (id === "") return problem("id", "empty", detail, id);
  const bytes = utf8.encode(id).byteLength;
  if (bytes > MAX_EXEC_ID_BYTES) return problem("id", "too-long", detail, id, { bytes });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  return /[\u0000-\u001f\u007f]/.test(id) ? problem("id", "control", detail, id) : undefined;
}

/** An absolute path without NUL (a process cannot be started in anything else). */
export function execCwdProblem(cwd: unknown): ExecRequestProblem | undefined {
  if (cwd === undefined) return undefined;
  if (typeof cwd !== "string") return problem("cwd", "type", "cwd must be a string", cwd);
  if (!cwd.startsWith("/")) return problem("cwd", "relative", "cwd must be an absolute path without NUL", cwd);
  if (cwd.includes("\0")) return problem("cwd", "nul", "cwd must be an absolute path without NUL", cwd);
  return undefined;
}

/** A plain object of strings; names without `=` (it would split into another variable) and nothing with NUL. */
export function execEnvProblem(env: unknown): ExecRequestProblem | undefined {
  if (env === undefined) return undefined;
  if (typeof env !== "object" || env === null || Array.isArray(env) || env instanceof Uint8Array) {
    return problem("env", "type", "env must be an object of strings", env);
  }
  for (const [key, value] of Object.entries(env)) {
    if (key === "" || key.includes("=") || key.includes("\0")) {
      return problem("env", "name", `env name ${JSON.stringify(key)} must be non-empty, without = or NUL`, value, {
        key,
      });
    }
    if (typeof value !== "string") return problem("env", "value-type", `env.${key} must be a string`, value, { key });
    if (value.includes("\0")) return problem("env", "nul", `env.${key} must not contain NUL`, value, { key });
  }
  return undefined;
}

/**
 * The options every end reads besides the source: id, cwd, env, stdin and
 * timeoutMs, each optional. The first problem in that order, or undefined.
 */
export function execOptionsProblem(options: {
  id?: unknown;
  cwd?: unknown;
  env?: unknown;
  stdin?: unknown;
  timeoutMs?: unknown;
}): ExecRequestProblem | undefined {
  if (options.id !== undefined) {
    const id = execIdProblem(options.id);
    if (id) return id;
  }
  const cwd = execCwdProblem(options.cwd);
  if (cwd) return cwd;
  const env = execEnvProblem(options.env);
  if (env) return env;
  const { stdin, timeoutMs } = options;
  if (stdin !== undefined && typeof stdin !== "string" && !(stdin instanceof Uint8Array)) {
    return problem("stdin", "type", "stdin must be a string or a Uint8Array", stdin);
  }
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) >= 0)) {
    return problem(
      "timeoutMs",
      "range",
      "timeoutMs must be a non-negative integer (0 disables the timeout)",
      timeoutMs,
    );
  }
  return undefined;
}

/** A whole wire request: an object whose `source` is a string without NUL, and valid options. */
export function execRequestProblem(request: unknown): ExecRequestProblem | undefined {
  if (typeof request !== "object" || request === null) {
    return problem("request", "type", "request must be an object", request);
  }
  const fields = request as Record<string, unknown>;
  if (typeof fields.source !== "string") return problem("source", "type", "source must be a string", fields.source);
  if (fields.source.includes("\0")) return problem("source", "nul", "source must not contain NUL", fields.source);
  return execOptionsProblem(fields);
}

/**
 * The wire's mapping: EPROTOCOL (which survives capnweb) with the detail. A
 * refused id is named by its first 32 characters, never echoed whole.
 */
export function execRequestError(found: ExecRequestProblem, syscall: string): WorkspaceRpcError {
  const id = found.value;
  const shown =
    found.field === "id" && typeof id === "string" ? `${id.slice(0, 32)}${id.length > 32 ? "…" : ""}` : undefined;
  return rpcError("EPROTOCOL", syscall, shown, found.detail);
}

/** Throws the wire's error for the first problem of `request`, if any. */
export function checkExecRequest(request: unknown, syscall = "exec"): void {
  const found = execRequestProblem(request);
  if (found) throw execRequestError(found, syscall);
}

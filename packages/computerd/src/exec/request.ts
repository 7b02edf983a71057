/**
 * The checks an exec request passes before anything runs: every field the
 * runner reads, with EPROTOCOL (which survives capnweb) for a wrong one, so
 * a bad request neither spawns nor leaks one of Node's own errors
 * (`ERR_INVALID_ARG_TYPE` from a pipe write, a spawn refusing a NUL).
 */
import type { ExecRequest } from "@cloudflare/computer-rpc";
import { rpcError } from "@cloudflare/computer-rpc";

export const MAX_EXEC_ID_BYTES = 256;
/** Node's timers hold at most 2^31 − 1 ms (24.8 days); a longer one would fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function checkExecRequest(request: Omit<ExecRequest, "input">): void {
  if (typeof request !== "object" || request === null) fail("request must be an object");
  if (request.id !== undefined) checkId(request.id, "exec");
  const { source, cwd, env, stdin, timeoutMs } = request as Record<string, unknown>;
  if (typeof source !== "string") fail("source must be a string");
  if (source.includes("\0")) fail("source must not contain NUL");
  if (cwd !== undefined && (typeof cwd !== "string" || !cwd.startsWith("/") || cwd.includes("\0"))) {
    fail("cwd must be an absolute path without NUL");
  }
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) >= 0)) {
    fail("timeoutMs must be a non-negative integer (0 disables the timeout)");
  }
  if (stdin !== undefined && typeof stdin !== "string" && !(stdin instanceof Uint8Array)) {
    fail("stdin must be a string or a Uint8Array");
  }
  if (env !== undefined) checkEnv(env);
}

/** A plain object of strings; names without `=` (it would split into another variable) and nothing with NUL. */
function checkEnv(env: unknown): void {
  if (typeof env !== "object" || env === null || Array.isArray(env) || env instanceof Uint8Array) {
    fail("env must be an object of strings");
  }
  for (const [name, value] of Object.entries(env)) {
    if (name === "" || name.includes("=") || name.includes("\0")) {
      fail(`env name ${JSON.stringify(name)} must be non-empty, without = or NUL`);
    }
    if (typeof value !== "string") fail(`env.${name} must be a string`);
    if (value.includes("\0")) fail(`env.${name} must not contain NUL`);
  }
}

/**
 * 1 to 256 UTF-8 bytes without control characters (a NUL or a newline in an
 * id would be stored, logged and echoed back as given). getExec, killExec and
 * disposeExec check theirs too, so a bad id is EPROTOCOL, never ENOENT.
 */
export function checkId(id: unknown, rpc: string): void {
  if (
    typeof id !== "string" ||
    id === "" ||
    Buffer.byteLength(id, "utf8") > MAX_EXEC_ID_BYTES ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    /[\u0000-\u001f\u007f]/.test(id)
  ) {
    const shown = typeof id === "string" ? JSON.stringify(`${id.slice(0, 32)}${id.length > 32 ? "…" : ""}`) : undefined;
    throw rpcError(
      "EPROTOCOL",
      rpc,
      shown,
      `execution id must be 1 to ${MAX_EXEC_ID_BYTES} UTF-8 bytes without control characters`,
    );
  }
}

function fail(detail: string): never {
  throw rpcError("EPROTOCOL", "exec", undefined, detail);
}

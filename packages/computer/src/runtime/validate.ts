/**
 * Argument checks of the public runtime layer. They throw TypeError: each is a
 * caller mistake, found before anything reaches a backend.
 */

/** Ids key the exec→runtime map and computerd's log; 256 bytes bounds both. */
export const MAX_EXEC_ID_BYTES = 256;

export function validateExecId(id: unknown): string {
  if (typeof id !== "string" || id === "") {
    throw new TypeError("Execution id must be a non-empty string");
  }
  const bytes = new TextEncoder().encode(id).byteLength;
  if (bytes > MAX_EXEC_ID_BYTES) {
    throw new TypeError(`Execution id must be at most ${MAX_EXEC_ID_BYTES} UTF-8 bytes; got ${bytes}`);
  }
  return id;
}

/** `input` is the argument of a callable backend; a command backend would silently drop it. */
export function validateInput(backend: { id: string; callable: boolean }, input: unknown): void {
  if (input === undefined || backend.callable) return;
  throw new TypeError(
    `Backend "${backend.id}" is not callable; only callable backends (such as worker-javascript) accept input`,
  );
}

export function validateCwd(cwd: string | undefined): void {
  if (cwd === undefined) return;
  if (typeof cwd !== "string" || !cwd.startsWith("/")) {
    throw new TypeError(`cwd must be an absolute path; got ${JSON.stringify(cwd)}`);
  }
}

const SYNC_MODES = new Set(["wait", "defer"]);

/** The rest of `exec`'s options: each wrong type would otherwise surface as a confusing backend error. */
export function validateExecOptions(options: {
  encoding?: unknown;
  env?: unknown;
  stdin?: unknown;
  timeoutMs?: unknown;
  sync?: unknown;
}): void {
  if (options.encoding !== undefined && options.encoding !== "utf8") {
    throw new TypeError(`encoding must be "utf8" or omitted; got ${JSON.stringify(options.encoding)}`);
  }
  if (options.env !== undefined) {
    if (typeof options.env !== "object" || options.env === null || Array.isArray(options.env)) {
      throw new TypeError("env must be an object of strings");
    }
    for (const [key, value] of Object.entries(options.env)) {
      if (typeof value !== "string") throw new TypeError(`env.${key} must be a string; got ${typeof value}`);
    }
  }
  if (options.stdin !== undefined && typeof options.stdin !== "string" && !(options.stdin instanceof Uint8Array)) {
    throw new TypeError("stdin must be a string or a Uint8Array");
  }
  if (options.timeoutMs !== undefined) {
    const ms = options.timeoutMs;
    if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 0) {
      throw new TypeError(`timeoutMs must be a non-negative integer (0 disables the timeout); got ${String(ms)}`);
    }
  }
  if (options.sync !== undefined && !SYNC_MODES.has(options.sync as string)) {
    throw new TypeError(`sync must be "wait" or "defer"; got ${JSON.stringify(options.sync)}`);
  }
}

const RESUME_MODES = new Set(["tail", "full"]);

export function validateResume(resume: unknown): void {
  if (resume === undefined || RESUME_MODES.has(resume as string)) return;
  if (typeof resume === "number" && Number.isSafeInteger(resume) && resume >= 0) return;
  throw new TypeError(`resume must be "tail", "full" or a seq number; got ${JSON.stringify(resume)}`);
}

const SIGNALS = new Set(["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP"]);

export function validateSignal(signal: unknown): void {
  if (signal === undefined || SIGNALS.has(signal as string)) return;
  throw new TypeError(`signal must be one of SIGTERM, SIGKILL, SIGINT, SIGHUP; got ${JSON.stringify(signal)}`);
}

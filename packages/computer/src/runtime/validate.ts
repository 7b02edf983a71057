/**
 * Argument checks of the public runtime layer. They throw TypeError: each is a
 * caller mistake, found before anything reaches a backend. The fields an exec
 * request carries are checked by the wire package's one check (the same one
 * the shell server and computerd run); this end only words the problem.
 */
import {
  type ExecRequestProblem,
  execCwdProblem,
  execIdProblem,
  execOptionsProblem,
  MAX_EXEC_ID_BYTES,
} from "@cloudflare/computer-rpc";

export { MAX_EXEC_ID_BYTES };

/** The runtime's wording of a problem the wire check found (kept from before the check was shared). */
function execTypeError(problem: ExecRequestProblem): TypeError {
  const value = problem.value;
  switch (problem.field) {
    case "id":
      return new TypeError(
        problem.reason === "too-long"
          ? `Execution id must be at most ${MAX_EXEC_ID_BYTES} UTF-8 bytes; got ${problem.bytes}`
          : problem.reason === "control"
            ? "Execution id must not contain control characters"
            : "Execution id must be a non-empty string",
      );
    case "cwd":
      return new TypeError(`cwd must be an absolute path; got ${JSON.stringify(value)}`);
    case "env":
      if (problem.reason === "value-type")
        return new TypeError(`env.${problem.key} must be a string; got ${typeof value}`);
      return new TypeError(problem.detail);
    case "timeoutMs":
      return new TypeError(`${problem.detail}; got ${String(value)}`);
    default:
      return new TypeError(problem.detail);
  }
}

export function validateExecId(id: unknown): string {
  const problem = execIdProblem(id);
  if (problem) throw execTypeError(problem);
  return id as string;
}

/** `input` is the argument of a callable backend; a command backend would silently drop it. */
export function validateInput(backend: { id: string; callable: boolean }, input: unknown): void {
  if (input === undefined || backend.callable) return;
  throw new TypeError(
    `Backend "${backend.id}" is not callable; only callable backends (such as worker-javascript) accept input`,
  );
}

export function validateCwd(cwd: string | undefined): void {
  const problem = execCwdProblem(cwd);
  if (problem) throw execTypeError(problem);
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
  const problem = execOptionsProblem({ env: options.env, stdin: options.stdin, timeoutMs: options.timeoutMs });
  if (problem) throw execTypeError(problem);
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

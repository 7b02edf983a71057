/**
 * The runtime's errors. One base class, `WorkspaceError`, with a `code` from a
 * closed table; the subclasses exist only because the reference names them
 * (`WorkspaceExecutionLostError`, `WorkspaceTransportError`, …) and users
 * catch them by class. Argument mistakes are `TypeError`s (see validate.ts).
 */
import { errorMessage } from "@cloudflare/dofs";

export const WORKSPACE_ERROR_CODES = {
  /** The execution ran on a runtime (container process) that has since been replaced. */
  EEXEC_LOST: "execution lost",
  /** The connection to a backend failed; see the message for the stage and cause. */
  ETRANSPORT: "backend transport failed",
  /** No backend with that id, or none at all. */
  ENOBACKEND: "no such backend",
  /** An optional capability (git, assets, artifacts, a retry scheduler) was used without being configured. */
  ENOTCONFIGURED: "not configured",
  /** The Workspace was closed. */
  ECLOSED: "workspace is closed",
  /** An execution id that already names a finished execution (worker-javascript's journal). */
  EEXEC_EXISTS: "execution id already used",
  /** A worker-javascript module graph was refused before any Worker was created. */
  EMODULE: "module graph rejected",
  /** A backend ran an execution under another id than the one it was given. */
  EEXEC_ID: "backend ignored the execution id",
} as const satisfies Record<string, string>;

export type WorkspaceErrorCode = keyof typeof WORKSPACE_ERROR_CODES;

export class WorkspaceError extends Error {
  override name = "WorkspaceError";
  readonly code: WorkspaceErrorCode;
  /** The backend the error is about, when there is one. */
  readonly backend: string | undefined;

  constructor(code: WorkspaceErrorCode, message: string, options: { backend?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.backend = options.backend;
  }
}

/** `{ name: "WorkspaceExecutionLostError", code: "EEXEC_LOST" }`, as the reference throws it. */
export class WorkspaceExecutionLostError extends WorkspaceError {
  override name = "WorkspaceExecutionLostError";
  readonly id: string;
  readonly runtimeId: string | undefined;

  constructor(id: string, options: { backend?: string; runtimeId?: string } = {}) {
    super("EEXEC_LOST", `Execution "${id}" was lost when its container runtime was replaced.`, options);
    this.id = id;
    this.runtimeId = options.runtimeId;
  }
}

export class WorkspaceTransportError extends WorkspaceError {
  override name = "WorkspaceTransportError";

  constructor(message: string, options: { backend?: string; cause?: unknown } = {}) {
    super("ETRANSPORT", message, options);
  }
}

/**
 * A transport failure before the command was dispatched (the pre-exec push):
 * safe to repeat push and spawn on a new connection.
 */
export class WorkspacePreDispatchTransportError extends WorkspaceTransportError {
  override name = "WorkspacePreDispatchTransportError";
}

export function isExecutionLost(error: unknown): error is WorkspaceExecutionLostError {
  return error instanceof WorkspaceError && error.code === "EEXEC_LOST";
}

/** A backend id that is not configured; the message lists the ones that are. */
export function unknownBackendError(id: string, configured: readonly string[]): WorkspaceError {
  const list = configured.length === 0 ? "none" : configured.map((name) => `"${name}"`).join(", ");
  return new WorkspaceError("ENOBACKEND", `Unknown backend "${id}"; configured backends: ${list}`, { backend: id });
}

export function noBackendsError(): WorkspaceError {
  return new WorkspaceError(
    "ENOBACKEND",
    "This Workspace has no execution backends (filesystem-only): pass backends to new Workspace({ backends }) to run commands",
  );
}

export function closedError(syscall: string): WorkspaceError {
  return new WorkspaceError("ECLOSED", errorMessage("ECLOSED", WORKSPACE_ERROR_CODES.ECLOSED, syscall));
}

/**
 * A backend that ignored the id it was given: the execution could be neither
 * found nor killed by the id the caller holds. The original's message.
 */
export function ignoredExecIdError(backend: string, ran: string, requested: string): WorkspaceError {
  return new WorkspaceError("EEXEC_ID", `backend ran exec as ${ran}, not the requested id ${requested}`, { backend });
}

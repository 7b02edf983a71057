/**
 * The one error class of `@cloudflare/computer/git`. Its `code` decides the
 * CLI exit status the way git's own does: argv mistakes 129, "fatal:"
 * conditions about the repository, identity or paths 128, anything else 1.
 */
import { errorMessage } from "@cloudflare/dofs";

export const GIT_ERROR_CODES = {
  /** Bad argv: unknown flag, missing value, unsupported mode. */
  EUSAGE: 129,
  ENOTREPO: 128,
  EALREADYREPO: 128,
  EIDENTITY: 128,
  /** A path outside the repository's work tree. */
  EOUTSIDE: 128,
  /** A pathspec or revision that matched nothing. */
  EPATHSPEC: 128,
  /** A safety refusal git also exits 128 for (clean without -f). */
  EREFUSED: 128,
  /** A URL whose scheme is not http, https or file. */
  ETRANSPORT: 1,
  ENOTFOUND: 1,
  EEXISTS: 1,
  ECONFLICT: 1,
  ENOTHING: 1,
  EFAILED: 1,
} as const;

export type GitErrorCode = keyof typeof GIT_ERROR_CODES;

export class GitError extends Error {
  override readonly name: string = "GitError";
  readonly code: GitErrorCode;
  readonly path: string | undefined;

  constructor(code: GitErrorCode, message: string, options?: { path?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options?.path;
  }

  get exitCode(): number {
    return GIT_ERROR_CODES[this.code];
  }
}

/** An argv mistake; always exit 129. */
export class GitUsageError extends GitError {
  override readonly name = "GitUsageError";
  constructor(message: string) {
    super("EUSAGE", message);
  }
}

export function isGitError(error: unknown, code?: GitErrorCode): error is GitError {
  return error instanceof GitError && (code === undefined || error.code === code);
}

export function notARepository(dir: string): GitError {
  return new GitError("ENOTREPO", `not a git repository (or any of the parent directories): ${dir}`, { path: dir });
}

/** The CLI's exit status for any thrown value: GitError by code, anything else (isomorphic-git's errors) 1. */
export function exitCodeOf(error: unknown): number {
  return error instanceof GitError ? error.exitCode : 1;
}

/** One line for stderr: filesystem errors keep their Node shape, others their message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split("\n")[0] ?? error.message;
  return errorMessage("EFAILED", String(error));
}

/**
 * The error class of `@cloudflare/computer/git` and its named subclasses (the
 * original's names, codes and messages: `NotARepositoryError` ENOTAREPO, …),
 * and the per-operation codes the typed client throws (`ELOGFAIL`, …; see
 * client.ts). The `code` decides the CLI exit status the way git's own does:
 * argv mistakes 129, "fatal:" conditions about the repository, identity or
 * paths 128, anything else 1.
 */
import { errorMessage } from "@cloudflare/dofs";

export const GIT_ERROR_CODES = {
  /** Bad argv: unknown flag, missing value, unsupported mode. */
  EUSAGE: 129,
  ENOTAREPO: 128,
  EALREADYINIT: 128,
  EIDENTITY: 128,
  /** A path outside the repository's work tree. */
  EPATHOUTSIDE: 128,
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
  /** commit without a message. */
  EMSG: 1,
  // What the typed GitClient methods throw for any other failure, one code per
  // operation as in the original (`git <verb> failed: <reason>`, the reason's
  // own error as `cause`). The CLI reports the reason itself.
  EADDFAIL: 1,
  EBRANCHFAIL: 1,
  ECATFILEFAIL: 1,
  ECHECKOUTFAIL: 1,
  ECLEANFAIL: 1,
  ECLONEFAIL: 1,
  ECOMMITFAIL: 1,
  ECONFIGFAIL: 1,
  ECURRENTBRANCHFAIL: 1,
  EDIFFFAIL: 1,
  EFETCHFAIL: 1,
  EHASHFAIL: 1,
  EINITFAIL: 1,
  ELOGFAIL: 1,
  ELSFILESFAIL: 1,
  ELSTREEFAIL: 1,
  EMERGEFAIL: 1,
  EPULLFAIL: 1,
  EPUSHFAIL: 1,
  EREMOTEFAIL: 1,
  ERESETFAIL: 1,
  EREVPARSEFAIL: 1,
  ERMFAIL: 1,
  ESHOWFAIL: 1,
  ESTASHFAIL: 1,
  ESTATUSFAIL: 1,
  ETAGFAIL: 1,
  EUPDATEREFFAIL: 1,
} as const;

export type GitErrorCode = keyof typeof GIT_ERROR_CODES;

/** `cause` as the original takes it; `message` (ours) replaces the default text of a named subclass. */
export interface GitErrorOptions {
  cause?: unknown;
  path?: string;
  message?: string;
}

export class GitError extends Error {
  override readonly name: string = "GitError";
  /** One of GIT_ERROR_CODES for our errors; a code of yours is kept (and exits 1). */
  readonly code: GitErrorCode;
  readonly path: string | undefined;

  constructor(code: GitErrorCode | (string & {}), message: string, options?: GitErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code as GitErrorCode;
    this.path = options?.path;
  }

  get exitCode(): number {
    return GIT_ERROR_CODES[this.code] ?? 1;
  }
}

/** No repository at or above `dir`. Exit 128. */
export class NotARepositoryError extends GitError {
  override readonly name = "NotARepositoryError";
  constructor(dir: string, options?: GitErrorOptions) {
    super("ENOTAREPO", options?.message ?? `not a git repository: ${dir}`, {
      path: dir,
      ...options,
    });
  }
}

/** `dir` already holds a repository (init, clone into it). Exit 128. */
export class AlreadyInitializedError extends GitError {
  override readonly name = "AlreadyInitializedError";
  constructor(dir: string, options?: GitErrorOptions) {
    super("EALREADYINIT", options?.message ?? `git repository already exists at ${dir}`, { path: dir, ...options });
  }
}

/** No author or committer identity from the call, the environment, the config or `defaultGitIdentity`. Exit 128. */
export class MissingIdentityError extends GitError {
  override readonly name = "MissingIdentityError";
  constructor(options?: GitErrorOptions) {
    super(
      "EIDENTITY",
      options?.message ??
        "author identity unknown. Pass author, set GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL, or configure defaultIdentity on the GitClient.",
      options,
    );
  }
}

/** A path argument outside the repository's work tree. Exit 128. */
export class PathOutsideRepoError extends GitError {
  override readonly name = "PathOutsideRepoError";
  constructor(path: string, dir: string, options?: GitErrorOptions) {
    super("EPATHOUTSIDE", options?.message ?? `path '${path}' is outside the repository at ${dir}`, {
      path,
      ...options,
    });
  }
}

/** A pathspec that matched nothing. Exit 128. */
export class PathspecNotFoundError extends GitError {
  override readonly name = "PathspecNotFoundError";
  constructor(pathspec: string, options?: GitErrorOptions) {
    super("EPATHSPEC", options?.message ?? `pathspec '${pathspec}' did not match any files`, {
      path: pathspec,
      ...options,
    });
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
  return new NotARepositoryError(dir);
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

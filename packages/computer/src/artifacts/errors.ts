/**
 * The errors of `@cloudflare/computer/artifacts`, under the original's names
 * and constructor shapes: one base class, `ArtifactError`, whose `code` is
 * what callers branch on, and one subclass per code of ours. The binding's
 * own errors (`ArtifactsError`, with codes like `NOT_FOUND`) pass through
 * unchanged.
 */

export type ArtifactErrorCode = "EINVALIDSESSION" | "EINVALIDNAME" | "ENOTFOUND" | "ENOCONFIG";

export class ArtifactError extends Error {
  override name = "ArtifactError";
  /** One of ArtifactErrorCode for our errors; a code of yours is kept as it is. */
  readonly code: string;
  constructor(code: ArtifactErrorCode | (string & {}), message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A repository name or session id is the trailing or leading segment of a stored name `<session>__<name>`. */
export const NAME_RULE = "use letters, digits, '.', '_' and '-', starting with a letter or digit";

export class InvalidSessionIdError extends ArtifactError {
  override name = "InvalidSessionIdError";
  constructor(sessionId: string, reason: string = NAME_RULE, options?: { cause?: unknown }) {
    super("EINVALIDSESSION", `invalid session id '${sessionId}': ${reason}`, options);
  }
}

export class InvalidRepoNameError extends ArtifactError {
  override name = "InvalidRepoNameError";
  constructor(name: string, reason: string = NAME_RULE, options?: { cause?: unknown }) {
    super("EINVALIDNAME", `invalid repository name '${name}': ${reason}`, options);
  }
}

/** A token id missing from its repository's list (a missing repository is the binding's own `NOT_FOUND`). */
export class NotFoundError extends ArtifactError {
  override name = "NotFoundError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("ENOTFOUND", message, options);
  }
}

/** @deprecated Our earlier name of `ArtifactError`. */
export const ArtifactsError = ArtifactError;
/** @deprecated Our earlier name of `ArtifactErrorCode`. */
export type ArtifactsErrorCode = ArtifactErrorCode;

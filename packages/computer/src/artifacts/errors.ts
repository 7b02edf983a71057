/**
 * The errors of `@cloudflare/computer/artifacts`: one base class (also
 * exported as the original's `ArtifactError`) with a `code`, one subclass per
 * code. The subclasses take the original's `(value, reason?, { cause }?)`.
 */

export type ArtifactsErrorCode = "EINVALIDSESSION" | "EINVALIDNAME" | "ENOTFOUND" | "EEXISTS";

export class ArtifactsError extends Error {
  override readonly name: string = "ArtifactsError";
  /** One of ArtifactsErrorCode for our errors; a code of yours is kept as it is. */
  readonly code: ArtifactsErrorCode;
  constructor(code: ArtifactsErrorCode | (string & {}), message: string, options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options);
    this.code = code as ArtifactsErrorCode;
  }
}

export class InvalidSessionIdError extends ArtifactsError {
  override readonly name = "InvalidSessionIdError";
  constructor(sessionId: string, reason: string = NAME_RULE, options?: { cause?: unknown }) {
    super("EINVALIDSESSION", `invalid Artifacts session id ${JSON.stringify(sessionId)}: ${reason}`, options);
  }
}

export class InvalidRepoNameError extends ArtifactsError {
  override readonly name = "InvalidRepoNameError";
  constructor(name: string, reason: string = NAME_RULE, options?: { cause?: unknown }) {
    super("EINVALIDNAME", `invalid repository name ${JSON.stringify(name)}: ${reason}`, options);
  }
}

export class NotFoundError extends ArtifactsError {
  override readonly name = "NotFoundError";
  /** `what` names the missing thing ("repository \"x\""); the message is `ENOTFOUND: <what> not found`. */
  constructor(what: string, options?: { cause?: unknown }) {
    super("ENOTFOUND", `${what} not found`, options);
  }
}

const NAME_RULE = "use letters, digits, '.', '_' and '-', starting with a letter or digit, and no '__'";

/** The errors of `@cloudflare/computer/artifacts`: one base class with a closed `code`, one subclass per code. */

export type ArtifactsErrorCode = "EINVALIDSESSION" | "EINVALIDNAME" | "ENOTFOUND" | "EEXISTS";

export class ArtifactsError extends Error {
  override readonly name: string = "ArtifactsError";
  readonly code: ArtifactsErrorCode;
  constructor(code: ArtifactsErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options);
    this.code = code;
  }
}

export class InvalidSessionIdError extends ArtifactsError {
  override readonly name = "InvalidSessionIdError";
  constructor(sessionId: string) {
    super("EINVALIDSESSION", `invalid Artifacts session id ${JSON.stringify(sessionId)}: ${NAME_RULE}`);
  }
}

export class InvalidRepoNameError extends ArtifactsError {
  override readonly name = "InvalidRepoNameError";
  constructor(name: string) {
    super("EINVALIDNAME", `invalid repository name ${JSON.stringify(name)}: ${NAME_RULE}`);
  }
}

export class NotFoundError extends ArtifactsError {
  override readonly name = "NotFoundError";
  constructor(what: string) {
    super("ENOTFOUND", `${what} not found`);
  }
}

const NAME_RULE = "use letters, digits, '.', '_' and '-', starting with a letter or digit, and no '__'";

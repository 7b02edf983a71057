/** The closed set of filesystem error codes `WorkspaceFsError.code` can carry. */
export const FS_ERROR_CODES = {
  ENOENT: "no such file or directory",
  ENOTEMPTY: "directory not empty",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  EEXIST: "file already exists",
  EINVAL: "invalid argument",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSYS: "function not implemented",
  EBADF: "bad file descriptor",
  ELOOP: "too many symbolic links encountered",
  ENAMETOOLONG: "name too long",
  EUNKNOWN_HASH: "unknown object hash",
  EIO: "input/output error",
} as const;

export type FsErrorCode = keyof typeof FS_ERROR_CODES;

/**
 * The message shape every error class of this project uses, after Node's:
 * `CODE: description, syscall: path` (just-bash matches on message text).
 */
export function errorMessage(code: string, description: string, syscall?: string, path?: string): string {
  const head = syscall ? `${code}: ${description}, ${syscall}` : `${code}: ${description}`;
  return path === undefined ? head : `${head}: ${path}`;
}

/**
 * Every filesystem failure. The message keeps Node's shape
 * (`ENOENT: no such file or directory, open: /a`) because just-bash matches on
 * message text while isomorphic-git matches on `code`.
 */
export class WorkspaceFsError extends Error {
  override readonly name = "WorkspaceFsError";
  readonly code: FsErrorCode;
  readonly path: string | undefined;
  /** The operation that failed, as in Node's `syscall`. */
  readonly syscall: string | undefined;

  constructor(code: FsErrorCode, syscall?: string, path?: string, options?: { cause?: unknown; detail?: string }) {
    super(
      errorMessage(code, options?.detail ?? FS_ERROR_CODES[code], syscall, path),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.path = path;
    this.syscall = syscall;
  }
}

/** The one factory; internal code throws through it so every error has the same shape. */
export function fsError(code: FsErrorCode, syscall: string, path?: string, detail?: string): WorkspaceFsError {
  return new WorkspaceFsError(code, syscall, path, detail === undefined ? undefined : { detail });
}

export function isFsError(error: unknown, code?: FsErrorCode): error is WorkspaceFsError {
  return error instanceof WorkspaceFsError && (code === undefined || error.code === code);
}

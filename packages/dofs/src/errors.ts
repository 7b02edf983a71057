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
  /** A file over a tool's size limit (the AI SDK `write` and `edit` tools). */
  EFBIG: "file too large",
} as const;

export type FsErrorCode = keyof typeof FS_ERROR_CODES;

/**
 * The message shape every error class of this project uses, Node's exactly:
 * `ENOENT: no such file or directory, open '/a'`, and for two-path calls
 * `EXDEV: cross-device link not permitted, rename '/a' -> '/b'`. just-bash
 * branches on the message text, isomorphic-git on `code`.
 */
export function errorMessage(
  code: string,
  description: string,
  syscall?: string,
  path?: string,
  dest?: string,
): string {
  const head = syscall ? `${code}: ${description}, ${syscall}` : `${code}: ${description}`;
  if (path === undefined) return head;
  return dest === undefined ? `${head} '${path}'` : `${head} '${path}' -> '${dest}'`;
}

/** Every filesystem failure, with Node's `code`, `syscall`, `path` (and `dest` for two-path calls). */
export class WorkspaceFsError extends Error {
  override readonly name = "WorkspaceFsError";
  readonly code: FsErrorCode;
  readonly path: string | undefined;
  /** The operation that failed, as in Node's `syscall`. */
  readonly syscall: string | undefined;
  /** The second path of `rename`, `link`, `symlink`, `cp`, as in Node's `dest`. */
  readonly dest: string | undefined;

  constructor(
    code: FsErrorCode,
    syscall?: string,
    path?: string,
    options?: { cause?: unknown; detail?: string; dest?: string },
  ) {
    super(
      errorMessage(code, options?.detail ?? FS_ERROR_CODES[code], syscall, path, options?.dest),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.path = path;
    this.syscall = syscall;
    this.dest = options?.dest;
  }
}

/**
 * The one factory; every surface throws through it so every error has the
 * same shape. `detail` replaces the code's standard description.
 */
export function fsError(
  code: FsErrorCode,
  syscall: string,
  path?: string,
  detail?: string,
  dest?: string,
): WorkspaceFsError {
  const options = detail === undefined && dest === undefined ? undefined : { detail, dest };
  return new WorkspaceFsError(code, syscall, path, options);
}

export function isFsError(error: unknown, code?: FsErrorCode): error is WorkspaceFsError {
  return error instanceof WorkspaceFsError && (code === undefined || error.code === code);
}

/** dofs errors (and anything else a FUSE op throws) as the negative errno FUSE answers with. */
import { constants } from "node:os";
import { isFsError } from "@cloudflare/dofs";

const ERRNO = constants.errno as Record<string, number | undefined>;
const EIO = -constants.errno.EIO;

export function toErrno(error: unknown): number {
  const code = (error as { code?: unknown } | undefined)?.code;
  // dofs' EUNKNOWN_HASH (a chunk that is not there) is an I/O error to a reader; so is anything unknown.
  if (isFsError(error) && error.code === "EUNKNOWN_HASH") return EIO;
  const errno = typeof code === "string" ? ERRNO[code] : undefined;
  return errno === undefined ? EIO : -errno;
}

export const ENOENT = -constants.errno.ENOENT;
export const EBADF = -constants.errno.EBADF;
export const EISDIR = -constants.errno.EISDIR;
export const ENOTDIR = -constants.errno.ENOTDIR;
export const EPERM = -constants.errno.EPERM;
export const ENOSYS = -constants.errno.ENOSYS;
export const EINVAL = -constants.errno.EINVAL;
export const ENAMETOOLONG = -constants.errno.ENAMETOOLONG;
export const EEXIST = -constants.errno.EEXIST;
export const ENOTEMPTY = -constants.errno.ENOTEMPTY;
export const EACCES = -constants.errno.EACCES;
export const ESTALE = -constants.errno.ESTALE;

/** An error carrying an errno for the FUSE adapter. */
export class ErrnoError extends Error {
  constructor(
    readonly errno: number,
    message: string,
  ) {
    super(message);
  }
}

export function errnoOf(error: unknown): number {
  return error instanceof ErrnoError ? error.errno : toErrno(error);
}

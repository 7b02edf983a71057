/** Fixed chunk size: chunk `idx` holds bytes `[idx * CHUNK_SIZE, (idx + 1) * CHUNK_SIZE)`. */
export const CHUNK_SIZE = 524_288;
export const SCHEMA_VERSION = 7;
export const ROOT_INODE = 1;
export const MANIFEST_VERSION = 1;
/** Symlinks followed while resolving one path before ELOOP. */
export const MAX_SYMLINK_FOLLOWS = 40;
/** Longest name (one path segment), in UTF-8 bytes: Linux's NAME_MAX, so every stored name fits a FUSE dirent. */
export const MAX_NAME_BYTES = 255;
/**
 * Linux's PATH_MAX, which counts the terminating NUL: a path (or a symlink
 * target) has at most 4095 UTF-8 bytes, so every stored path is one a
 * process can name in a single syscall.
 */
export const MAX_PATH_BYTES = 4096;
export const DEFAULT_FILE_MODE = 0o644;
export const DEFAULT_DIR_MODE = 0o755;
export const SYMLINK_MODE = 0o777;
export const MODE_MASK = 0o7777;
/** Unreferenced blobs younger than this survive `gc`. */
export const GC_SAFETY_WINDOW_MS = 3_600_000;

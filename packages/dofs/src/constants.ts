/** Fixed chunk size: chunk `idx` holds bytes `[idx * CHUNK_SIZE, (idx + 1) * CHUNK_SIZE)`. */
export const CHUNK_SIZE = 524_288;
export const SCHEMA_VERSION = 6;
export const ROOT_INODE = 1;
export const MANIFEST_VERSION = 1;
/** Symlinks followed while resolving one path before ELOOP. */
export const MAX_SYMLINK_FOLLOWS = 40;
export const DEFAULT_FILE_MODE = 0o644;
export const DEFAULT_DIR_MODE = 0o755;
export const SYMLINK_MODE = 0o777;
export const MODE_MASK = 0o7777;
/** Unreferenced blobs younger than this survive `gc`. */
export const GC_SAFETY_WINDOW_MS = 3_600_000;

export { concatBytes, readAllBytes } from "./bytes.js";
export {
  CHUNK_SIZE,
  DEFAULT_DIR_MODE,
  DEFAULT_FILE_MODE,
  GC_SAFETY_WINDOW_MS,
  MANIFEST_VERSION,
  MAX_NAME_BYTES,
  MAX_PATH_BYTES,
  MAX_SYMLINK_FOLLOWS,
  MODE_MASK,
  ROOT_INODE,
  SCHEMA_VERSION,
  SYMLINK_MODE,
} from "./constants.js";
export { Database, type Row, type SqlValue } from "./database.js";
export {
  type ErrorRebuilder,
  type ErrorShape,
  type ErrorShapeData,
  fromShape,
  rebuildWorkspaceFsError,
  toShape,
} from "./error-shape.js";
export {
  errorMessage,
  FS_ERROR_CODES,
  type FsErrorCode,
  fsError,
  isFsError,
  WorkspaceFsError,
} from "./errors.js";
export { WorkspaceFilesystem } from "./filesystem.js";
export type { WatchEvent, WatchHandle, WatchOptions } from "./fs/watch.js";
export { type ChunkRef, encodeManifest, manifestHash } from "./manifest.js";
export { type MountAccess, type MountState, mountState, setMount, stampMountRoot } from "./mounts.js";
export { isNameTooLong, isTargetTooLong, normalizePath } from "./path.js";
export {
  SQLiteWorkspaceProvider,
  type SQLiteWorkspaceProviderOptions,
  type VirtualDirentLike,
  type VirtualStatsLike,
  type WriteFileRange,
} from "./provider.js";
export { currentRev, ensureSchema, initializeSchema } from "./schema.js";
export {
  type DurableObjectSqlCursor,
  type DurableObjectSqlStorage,
  type DurableObjectStorageLike,
  openDurableObjectDatabase,
  type SqlCursorLike,
  type SqlStorageLike,
  StorageDatabase,
} from "./storage-database.js";
export type {
  DirEntry,
  FilesystemOptions,
  FindEntry,
  GcOptions,
  GcResult,
  GrepContextLine,
  GrepMatch,
  GrepOptions,
  MkdirOptions,
  NodeType,
  PageOptions,
  ReadFileOptions,
  RmOptions,
  Stat,
  WriteData,
  WriteFileOptions,
} from "./types.js";

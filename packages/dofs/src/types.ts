/** Public shapes of the workspace filesystem. Times are milliseconds since the epoch. */

export type NodeType = "file" | "dir" | "symlink";

export interface Stat {
  /** Last path segment; `""` for the root. */
  name: string;
  inode: number;
  /** Permission bits only (`mode & 0o7777`). */
  mode: number;
  mtime: number;
  /** File: bytes; directory: 0; symlink: UTF-8 length of the target. */
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface DirEntry {
  name: string;
  /** The directory that was listed, normalized. */
  parentPath: string;
  size: number;
  mtime: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface FindEntry {
  path: string;
  /**
   * Declared as the original declares it, so code written against its types
   * compiles unchanged. At run time a symbolic link is listed with
   * `"symlink"`, as the original's is (see `FoundEntry`).
   */
  type: "file" | "dir";
}

/** What `find` really lists: `FindEntry` with the link type its declaration leaves out (internal). */
export interface FoundEntry {
  path: string;
  type: NodeType;
}

export interface GrepContextLine {
  line: number;
  text: string;
  isMatch: boolean;
}

export interface GrepMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
  /** Present when `context` > 0; includes the matching line itself. */
  context?: GrepContextLine[];
}

export interface ReadFileOptions {
  byteOffset?: number;
  byteLength?: number;
  encoding?: "utf8";
}

export interface WriteFileOptions {
  /** Defaults to 0o644 on every write, including overwrites. Masked with 0o7777. */
  mode?: number;
  /** Fail with EEXIST when the path already exists. */
  exclusive?: boolean;
}

export interface MkdirOptions {
  recursive?: boolean;
  mode?: number;
}

export interface RmOptions {
  recursive?: boolean;
  force?: boolean;
}

export interface PageOptions {
  limit?: number;
  offset?: number;
}

export interface GrepOptions extends PageOptions {
  /** Treat the pattern as a JavaScript regular expression (default: literal). */
  regex?: boolean;
  ignoreCase?: boolean;
  /** Lines of context on each side of a match. */
  context?: number;
  /** Glob over paths relative to the searched directory (same syntax as `find`). */
  include?: string;
}

export type WriteData = string | Uint8Array | ReadableStream<Uint8Array>;

export interface GcOptions {
  now?: number;
  /** Blobs unreferenced for less than this long survive. Default 1 hour. */
  safetyWindowMs?: number;
}

export interface GcResult {
  blobsFreed: number;
  manifestsFreed: number;
}

export interface FilesystemOptions {
  /** Clock for mtimes and blob ages; injectable for tests. */
  now?: () => number;
  /**
   * The longest path (UTF-8 bytes, counting a terminating NUL as Linux's
   * PATH_MAX does) this filesystem's calls accept; MAX_PATH_BYTES (4096) by
   * default. A FUSE mount stores paths below its mount point's own, while
   * Linux limits only what one system call is given (a process may cd
   * deeper): computerd raises it there (docs/computerd.md, "Path length").
   */
  maxPathBytes?: number;
}

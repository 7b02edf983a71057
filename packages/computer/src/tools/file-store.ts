/**
 * `FileStore`: the few verbs `read`, `write`, `edit` and `delete` need, so a
 * host can point those tools at something other than a workspace (and tests
 * can slow a store down to observe the locks). `WorkspaceFileStore` is the
 * one over `workspace.fs`.
 */
import { isFsError, normalizePath, readAllBytes } from "@cloudflare/dofs";
import type { ToolFilesystem } from "./types.js";

/** What a store's `stat` answers (the original's `FileStat`). */
export interface FileInfo {
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  /** Mode bits (for example 0o100755), when the store keeps them. */
  mode?: number;
}

export interface FileStore {
  /**
   * Identifies the storage for the per-path locks: stores that write the same
   * files must return the same object, whatever tool set they belong to.
   * Optional, as in the original: without one, the store itself is the key.
   */
  readonly lockIdentity?: object;
  /** Follows symlinks; null when nothing is there or it is not a regular file. */
  stat(path: string): Promise<FileInfo | null>;
  /** The whole file; null when nothing is there. */
  readAll(path: string): Promise<Uint8Array | null>;
  /**
   * The bytes from `byteOffset` (default 0), exactly `byteLength` of them when
   * given and available; nothing past the end. Throws if the file is missing.
   */
  readChunks(path: string, byteOffset?: number, byteLength?: number): AsyncIterable<Uint8Array>;
  /** Creates missing parent directories. */
  write(path: string, content: Uint8Array, options?: { mode?: number }): Promise<void>;
}

export interface MutableFileStore extends FileStore {
  remove(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
}

/** Where relative paths given to the tools are resolved. */
export const TOOL_CWD = "/workspace";

/** Absolute and normalized; a relative path is taken from `/workspace`. */
export function resolveToolPath(path: string, syscall = "open"): string {
  const absolute = typeof path === "string" && path !== "" && !path.startsWith("/") ? `${TOOL_CWD}/${path}` : path;
  return normalizePath(absolute, syscall);
}

/** The filesystem calls `WorkspaceFileStore` makes (the original's `WorkspaceFileStoreLike`). */
export interface WorkspaceFileStoreLike {
  fs: Pick<ToolFilesystem, "stat" | "readFile" | "writeFile" | "mkdir" | "rm">;
}

function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/** A `MutableFileStore` over `workspace.fs`: the store `createAITools` builds. */
export class WorkspaceFileStore implements MutableFileStore {
  readonly #fs: WorkspaceFileStoreLike["fs"];
  /** `workspace.fs`: every store and tool set over one workspace shares the locks. */
  readonly lockIdentity: object;

  constructor(workspace: WorkspaceFileStoreLike) {
    this.#fs = workspace.fs;
    this.lockIdentity = workspace.fs;
  }

  async stat(path: string): Promise<FileInfo | null> {
    try {
      const stat = await this.#fs.stat(path);
      // The FileStore contract: a directory (or anything but a file) is not there for these tools.
      if (!stat.isFile) return null;
      return { size: stat.size, mtime: stat.mtime, mode: stat.mode };
    } catch (error) {
      if (isFsError(error, "ENOENT")) return null;
      throw error;
    }
  }

  async readAll(path: string): Promise<Uint8Array | null> {
    try {
      // readFile's stream, not readFileBytes: a getWorkspace() client's fs has only the calls in ToolFilesystem.
      return await readAllBytes(await this.#fs.readFile(path));
    } catch (error) {
      if (isFsError(error, "ENOENT")) return null;
      throw error;
    }
  }

  async *readChunks(path: string, byteOffset = 0, byteLength?: number): AsyncIterable<Uint8Array> {
    if (!isNonNegativeInteger(byteOffset)) {
      throw new RangeError(`readChunks: byteOffset must be a non-negative integer; got ${byteOffset}`);
    }
    if (byteLength !== undefined && !isNonNegativeInteger(byteLength)) {
      throw new RangeError(`readChunks: byteLength must be a non-negative integer; got ${byteLength}`);
    }
    const stream = await this.#fs.readFile(path, { byteOffset, ...(byteLength === undefined ? {} : { byteLength }) });
    const reader = stream.getReader();
    let drained = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          drained = true;
          return;
        }
        if (value.byteLength > 0) yield value;
      }
    } finally {
      // The caller may stop early (a page is full); cancel frees the rest of the ranged read.
      if (!drained) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }

  async write(path: string, content: Uint8Array, options: { mode?: number } = {}): Promise<void> {
    const writeOptions = options.mode === undefined ? {} : { mode: options.mode };
    try {
      await this.#fs.writeFile(path, content, writeOptions);
    } catch (error) {
      // Only on a missing parent: a no-op `mkdir -p` would still use up a rev.
      if (!isFsError(error, "ENOENT")) throw error;
      const parent = normalizePath(path, "open").replace(/\/[^/]*$/, "") || "/";
      await this.#fs.mkdir(parent, { recursive: true });
      await this.#fs.writeFile(path, content, writeOptions);
    }
  }

  async remove(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    await this.#fs.rm(path, options);
  }
}

/** A file tool's target: the workspace, or (the original's form) only a `store`. */
export type FileToolTarget<Store extends FileStore = FileStore> =
  | { workspace: WorkspaceFileStoreLike; store?: Store }
  | { workspace?: WorkspaceFileStoreLike; store: Store };

/**
 * The store a file tool works on: `store` when given (the original's
 * `create*Tool({ store })`), else the workspace's files.
 */
export function toolStore<Store extends FileStore>(
  options: { workspace?: WorkspaceFileStoreLike | undefined; store?: Store | undefined },
  name: string,
): Store | WorkspaceFileStore {
  if (options.store !== undefined) return options.store;
  if (options.workspace?.fs === undefined) throw new TypeError(`${name} needs { store } or { workspace }`);
  return new WorkspaceFileStore(options.workspace);
}

/** A byte or line cap from the options: a positive integer, or the default. */
export function capOption(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive integer; got ${String(value)}`);
  }
  return value;
}

/**
 * What a file tool says when the store has no file at `path`: the store's
 * contract folds "missing" and "not a regular file" into one null.
 */
export function noSuchFile(path: string): Error {
  return new Error(`No such file: ${path}`);
}

/** `store.readAll`, with null (nothing there) as the tool's error. */
export async function readAllOrThrow(store: FileStore, path: string): Promise<Uint8Array> {
  const bytes = await store.readAll(path);
  if (bytes === null) throw noSuchFile(path);
  return bytes;
}

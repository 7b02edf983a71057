/**
 * `FileStore`: the few verbs `read`, `write`, `edit` and `delete` need, so a
 * host can point those tools at something other than a workspace (and tests
 * can slow a store down to observe the locks). `WorkspaceFileStore` is the
 * one over `workspace.fs`.
 */
import { fsError, isFsError, normalizePath, readAllBytes } from "@cloudflare/dofs";
import type { ToolFilesystem, ToolWorkspace } from "./types.js";

export interface FileInfo {
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  /** Permission bits, when the store keeps them. */
  mode?: number;
  isDirectory?: boolean;
}

export interface FileStore {
  /**
   * Identifies the storage for the per-path locks: stores that write the same
   * files must return the same object, whatever tool set they belong to.
   * Optional, as in the original: without one, the store itself is the key.
   */
  readonly lockIdentity?: object;
  /** Follows symlinks; null when nothing is there. */
  stat(path: string): Promise<FileInfo | null>;
  /** The whole file; a store may answer null when nothing is there (the original's contract). */
  readAll(path: string): Promise<Uint8Array | null>;
  /**
   * The bytes from `byteOffset` (default 0), exactly `byteLength` of them when
   * given and available; nothing past the end. Throws if the file is missing.
   */
  readChunks(path: string, byteOffset?: number, byteLength?: number): AsyncIterable<Uint8Array>;
  /** Creates missing parent directories. */
  write(path: string, bytes: Uint8Array, options?: { mode?: number }): Promise<void>;
}

export interface MutableFileStore extends FileStore {
  remove(path: string, options: { recursive: boolean; force: boolean }): Promise<void>;
}

/** Where relative paths given to the tools are resolved. */
export const TOOL_CWD = "/workspace";

/** Absolute and normalized; a relative path is taken from `/workspace`. */
export function resolveToolPath(path: string, syscall = "open"): string {
  const absolute = typeof path === "string" && path !== "" && !path.startsWith("/") ? `${TOOL_CWD}/${path}` : path;
  return normalizePath(absolute, syscall);
}

export class WorkspaceFileStore implements MutableFileStore {
  readonly #fs: ToolFilesystem;

  constructor(workspace: { readonly fs: ToolFilesystem }) {
    this.#fs = workspace.fs;
  }

  get lockIdentity(): object {
    return this.#fs;
  }

  async stat(path: string): Promise<FileInfo | null> {
    try {
      const stat = await this.#fs.stat(path);
      return { size: stat.size, mtime: stat.mtime, mode: stat.mode, isDirectory: stat.isDirectory };
    } catch (error) {
      if (isFsError(error, "ENOENT")) return null;
      throw error;
    }
  }

  async readAll(path: string): Promise<Uint8Array> {
    // readFile's stream, not readFileBytes: a getWorkspace() client's fs has only the calls in ToolFilesystem.
    return readAllBytes(await this.#fs.readFile(path));
  }

  async *readChunks(path: string, byteOffset?: number, byteLength?: number): AsyncIterable<Uint8Array> {
    const stream = await this.#fs.readFile(path, {
      ...(byteOffset === undefined ? {} : { byteOffset }),
      ...(byteLength === undefined ? {} : { byteLength }),
    });
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.byteLength > 0) yield value;
      }
    } finally {
      // The caller may stop early (a page is full); cancel frees the rest of the ranged read.
      await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }

  async write(path: string, bytes: Uint8Array, options: { mode?: number } = {}): Promise<void> {
    const writeOptions = options.mode === undefined ? {} : { mode: options.mode };
    try {
      await this.#fs.writeFile(path, bytes, writeOptions);
    } catch (error) {
      // Only on a missing parent: a no-op `mkdir -p` would still use up a rev.
      if (!isFsError(error, "ENOENT")) throw error;
      const parent = normalizePath(path, "open").replace(/\/[^/]*$/, "") || "/";
      await this.#fs.mkdir(parent, { recursive: true });
      await this.#fs.writeFile(path, bytes, writeOptions);
    }
  }

  async remove(path: string, options: { recursive: boolean; force: boolean }): Promise<void> {
    await this.#fs.rm(path, options);
  }
}

/** A file tool's target: the workspace, or (the original's form) only a `store`. */
export type FileToolTarget<Store extends FileStore = FileStore> =
  | { workspace: ToolWorkspace; store?: Store }
  | { workspace?: ToolWorkspace; store: Store };

/**
 * The store a file tool works on: `store` when given (the original's
 * `create*Tool({ store })`), else the workspace's files.
 */
export function toolStore<Store extends FileStore>(
  options: { workspace?: ToolWorkspace | undefined; store?: Store | undefined },
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

/** `store.readAll`, with a missing file as ENOENT whichever way the store says so. */
export async function readAllOrThrow(store: FileStore, path: string): Promise<Uint8Array> {
  const bytes = await store.readAll(path);
  if (bytes === null) throw fsError("ENOENT", "open", path);
  return bytes;
}

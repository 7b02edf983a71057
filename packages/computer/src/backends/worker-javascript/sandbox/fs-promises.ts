/**
 * Runs inside the Dynamic Worker as `node:fs/promises` (bundled to
 * `__computer/fs-promises.js`). Each function is one host call; the host
 * resolves paths against the execution's cwd, confines them to the root,
 * refuses I/O through symlinks and enforces `access: "read"`. Here we only
 * shape arguments and results the way Node does (Buffers, Stats, Dirents).
 */

import type { DirentShape, StatShape } from "../protocol/messages.js";
import { call } from "./bridge.js";

type PathLike = string | URL | Uint8Array;

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

export const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, S_IFMT: 0o170000, S_IFREG, S_IFDIR, S_IFLNK };

function pathOf(path: PathLike): string {
  if (typeof path === "string") return path;
  if (path instanceof URL) {
    if (path.protocol !== "file:") throw new TypeError(`The URL must be of scheme file; got ${path.protocol}`);
    return decodeURIComponent(path.pathname);
  }
  if (path instanceof Uint8Array) return new TextDecoder().decode(path);
  throw new TypeError(`The "path" argument must be a string, URL or Buffer; got ${typeof path}`);
}

function bytesOut(bytes: Uint8Array): Uint8Array {
  const buffer = (globalThis as { Buffer?: { from(bytes: Uint8Array): Uint8Array } }).Buffer;
  return buffer ? buffer.from(bytes) : bytes;
}

function encodingOf(options: unknown): string | undefined {
  if (typeof options === "string") return options;
  if (typeof options === "object" && options !== null) {
    const encoding = (options as { encoding?: unknown }).encoding;
    if (encoding === null || encoding === undefined) return undefined;
    return String(encoding);
  }
  return undefined;
}

/** The type predicates `Stats` and `Dirent` share; the workspace has only files, directories and symlinks. */
abstract class EntryType {
  readonly #kind: { isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean };

  constructor(kind: { isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }) {
    this.#kind = kind;
  }

  isFile(): boolean {
    return this.#kind.isFile;
  }
  isDirectory(): boolean {
    return this.#kind.isDirectory;
  }
  isSymbolicLink(): boolean {
    return this.#kind.isSymbolicLink;
  }
  isBlockDevice(): boolean {
    return false;
  }
  isCharacterDevice(): boolean {
    return false;
  }
  isFIFO(): boolean {
    return false;
  }
  isSocket(): boolean {
    return false;
  }
}

class Stats extends EntryType {
  readonly dev = 0;
  readonly nlink = 1;
  readonly uid = 0;
  readonly gid = 0;
  readonly blksize = 4096;
  readonly mode: number;
  readonly size: number;
  readonly ino: number;
  readonly blocks: number;
  readonly mtimeMs: number;
  readonly atimeMs: number;
  readonly ctimeMs: number;
  readonly birthtimeMs: number;
  readonly mtime: Date;
  readonly atime: Date;
  readonly ctime: Date;
  readonly birthtime: Date;
  constructor(shape: StatShape) {
    super(shape);
    const type = shape.isDirectory ? S_IFDIR : shape.isSymbolicLink ? S_IFLNK : S_IFREG;
    this.mode = type | shape.mode;
    this.size = shape.size;
    this.ino = shape.ino;
    this.blocks = Math.ceil(shape.size / 512);
    this.mtimeMs = this.atimeMs = this.ctimeMs = this.birthtimeMs = shape.mtimeMs;
    this.mtime = new Date(shape.mtimeMs);
    this.atime = new Date(shape.mtimeMs);
    this.ctime = new Date(shape.mtimeMs);
    this.birthtime = new Date(shape.mtimeMs);
  }
}

class Dirent extends EntryType {
  readonly name: string;
  readonly parentPath: string;
  readonly path: string;
  constructor(shape: DirentShape) {
    super(shape);
    this.name = shape.name;
    this.parentPath = shape.parentPath;
    this.path = shape.parentPath;
  }
}

export async function readFile(path: PathLike, options?: unknown): Promise<string | Uint8Array> {
  const encoding = encodingOf(options);
  const value = await call("fs", "readFile", [pathOf(path), encoding ?? null]);
  return typeof value === "string" ? value : bytesOut(value as Uint8Array);
}

export async function writeFile(path: PathLike, data: unknown, options?: unknown): Promise<void> {
  let payload: string | Uint8Array;
  if (typeof data === "string") payload = data;
  else if (ArrayBuffer.isView(data)) payload = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  else if (data instanceof ArrayBuffer) payload = new Uint8Array(data.slice(0));
  else throw new TypeError('The "data" argument must be a string, Buffer, TypedArray or DataView');
  const opts = typeof options === "object" && options !== null ? (options as { flag?: unknown; mode?: unknown }) : {};
  await call("fs", "writeFile", [pathOf(path), payload, { flag: opts.flag ?? "w", mode: opts.mode ?? null }]);
}

export async function mkdir(path: PathLike, options?: unknown): Promise<undefined> {
  const opts =
    typeof options === "object" && options !== null ? (options as { recursive?: unknown; mode?: unknown }) : {};
  const mode = typeof options === "number" ? options : (opts.mode ?? null);
  await call("fs", "mkdir", [pathOf(path), { recursive: opts.recursive === true, mode }]);
  return undefined;
}

export async function rm(path: PathLike, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
  await call("fs", "rm", [pathOf(path), { recursive: options?.recursive === true, force: options?.force === true }]);
}

export async function chmod(path: PathLike, mode: number | string): Promise<void> {
  await call("fs", "chmod", [pathOf(path), typeof mode === "string" ? Number.parseInt(mode, 8) : mode]);
}

export async function symlink(target: PathLike, path: PathLike): Promise<void> {
  await call("fs", "symlink", [pathOf(target), pathOf(path)]);
}

export async function readlink(path: PathLike): Promise<string> {
  return (await call("fs", "readlink", [pathOf(path)])) as string;
}

export async function readdir(path: PathLike, options?: unknown): Promise<string[] | Dirent[]> {
  const withFileTypes =
    typeof options === "object" && options !== null && (options as { withFileTypes?: unknown }).withFileTypes === true;
  const entries = (await call("fs", "readdir", [pathOf(path)])) as DirentShape[];
  return withFileTypes ? entries.map((entry) => new Dirent(entry)) : entries.map((entry) => entry.name);
}

export async function stat(path: PathLike): Promise<Stats> {
  return new Stats((await call("fs", "stat", [pathOf(path)])) as StatShape);
}

export async function lstat(path: PathLike): Promise<Stats> {
  return new Stats((await call("fs", "lstat", [pathOf(path)])) as StatShape);
}

export async function access(path: PathLike, mode = constants.F_OK): Promise<void> {
  await call("fs", "access", [pathOf(path), mode]);
}

const promises = { readFile, writeFile, mkdir, rm, chmod, symlink, readlink, readdir, stat, lstat, access, constants };

export default promises;

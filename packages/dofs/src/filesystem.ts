import { readAllBytes } from "./bytes.js";
import { DEFAULT_DIR_MODE, DEFAULT_FILE_MODE, MODE_MASK } from "./constants.js";
import type { Database } from "./database.js";
import { fsError } from "./errors.js";
import { chmod as chmodPath, symlink as symlinkPath } from "./fs/change-node.js";
import { grep as grepPath } from "./fs/grep.js";
import { readdir as readdirPath, readlink as readlinkPath, stat as statPath } from "./fs/inspect.js";
import { link as linkPath } from "./fs/link.js";
import { mkdir as mkdirPath } from "./fs/mkdir.js";
import { openForRead, planRead, readPiecesAsText, streamPieces } from "./fs/read-file.js";
import { rename as renamePath } from "./fs/rename.js";
import { rm as rmPath } from "./fs/rm.js";
import { find as findPath, ls as lsPath } from "./fs/search.js";
import { writeFile as writeFilePath } from "./fs/write-file.js";
import { gc as collect } from "./gc.js";
import { isTargetTooLong, normalizePath } from "./path.js";
import { ensureSchema } from "./schema.js";
import type {
  DirEntry,
  FilesystemOptions,
  FindEntry,
  GcOptions,
  GcResult,
  GrepMatch,
  GrepOptions,
  MkdirOptions,
  PageOptions,
  ReadFileOptions,
  RmOptions,
  Stat,
  WriteData,
  WriteFileOptions,
} from "./types.js";

/**
 * The workspace filesystem over one SQLite database. This layer validates
 * arguments and normalizes paths; the verbs under `fs/` trust their input.
 * The schema is created on first use, so a bare `new WorkspaceFilesystem(db)`
 * is ready. Methods are async for the shape of the API (and streams), but
 * every change commits in one synchronous transaction.
 */
export class WorkspaceFilesystem {
  readonly #db: Database;
  /** The clock every change is stamped with (`options.now`, else `Date.now`), in milliseconds. */
  readonly now: () => number;

  readonly #maxPathBytes: number | undefined;

  constructor(db: Database, options: FilesystemOptions = {}) {
    this.#db = db;
    this.now = options.now ?? Date.now;
    this.#maxPathBytes = options.maxPathBytes;
  }

  #path(path: unknown, syscall: string): string {
    return normalizePath(path, syscall, this.#maxPathBytes);
  }

  /** The database this filesystem lives in (sync and mounts build on it). */
  get db(): Database {
    return this.#ready();
  }

  readFile(path: string): Promise<ReadableStream<Uint8Array>>;
  readFile(path: string, encoding: "utf8"): Promise<string>;
  readFile(path: string, options: ReadFileOptions & { encoding: "utf8" }): Promise<string>;
  readFile(path: string, options: ReadFileOptions): Promise<ReadableStream<Uint8Array>>;
  async readFile(path: string, options?: "utf8" | ReadFileOptions): Promise<ReadableStream<Uint8Array> | string> {
    const db = this.#ready();
    const p = this.#path(path, "open");
    const opts: ReadFileOptions = typeof options === "string" ? { encoding: checkEncoding(options) } : (options ?? {});
    if (opts.encoding !== undefined) checkEncoding(opts.encoding);
    const offset = checkByteCount(opts.byteOffset, "byteOffset", p) ?? 0;
    const length = checkByteCount(opts.byteLength, "byteLength", p);
    const node = openForRead(db, p);
    const pieces = planRead(db, node, offset, length);
    return opts.encoding === "utf8" ? readPiecesAsText(db, pieces, p) : streamPieces(db, pieces, p);
  }

  /** `readFile` read whole: the file's bytes (or the `byteOffset`/`byteLength` range) as one array. */
  async readFileBytes(path: string, options: Omit<ReadFileOptions, "encoding"> = {}): Promise<Uint8Array> {
    return readAllBytes(await this.readFile(path, { byteOffset: options.byteOffset, byteLength: options.byteLength }));
  }

  async writeFile(path: string, data: WriteData, options: WriteFileOptions = {}): Promise<void> {
    const db = this.#ready();
    const p = this.#path(path, "open");
    const mode = checkMode(options.mode, DEFAULT_FILE_MODE, "open", p);
    if (!(typeof data === "string" || data instanceof Uint8Array || data instanceof ReadableStream)) {
      throw new TypeError("writeFile data must be a string, a Uint8Array or a ReadableStream<Uint8Array>");
    }
    await writeFilePath(db, p, data, mode, options.exclusive === true, this.now);
  }

  async mkdir(path: string, options: MkdirOptions = {}): Promise<void> {
    const db = this.#ready();
    const p = this.#path(path, "mkdir");
    mkdirPath(db, p, checkMode(options.mode, DEFAULT_DIR_MODE, "mkdir", p), options.recursive === true, this.now());
  }

  async rm(path: string, options: RmOptions = {}): Promise<void> {
    const db = this.#ready();
    const p = this.#path(path, "rm");
    rmPath(db, p, options.recursive === true, options.force === true, this.now());
  }

  async readdir(path: string, options: PageOptions = {}): Promise<DirEntry[]> {
    const db = this.#ready();
    const p = this.#path(path, "scandir");
    const { limit, offset } = checkPage(options, "readdir");
    return readdirPath(db, p, limit, offset);
  }

  async stat(path: string): Promise<Stat> {
    return statPath(this.#ready(), this.#path(path, "stat"), true);
  }

  async lstat(path: string): Promise<Stat> {
    return statPath(this.#ready(), this.#path(path, "lstat"), false);
  }

  async readlink(path: string): Promise<string> {
    return readlinkPath(this.#ready(), this.#path(path, "readlink"));
  }

  async chmod(path: string, mode: number): Promise<void> {
    const db = this.#ready();
    const p = this.#path(path, "chmod");
    if (mode === undefined) throw fsError("EINVAL", "chmod", p, "mode is required");
    chmodPath(db, p, checkMode(mode, 0, "chmod", p), this.now());
  }

  async symlink(target: string, path: string): Promise<void> {
    const db = this.#ready();
    const p = this.#path(path, "symlink");
    if (typeof target !== "string" || target === "" || target.includes("\0")) {
      throw fsError("EINVAL", "symlink", p, "symlink target must be a non-empty string without NUL");
    }
    if (isTargetTooLong(target)) throw fsError("ENAMETOOLONG", "symlink", p);
    symlinkPath(db, target, p, this.now());
  }

  async find(dir: string, pattern = "", options: PageOptions = {}): Promise<FindEntry[]> {
    const db = this.#ready();
    const p = this.#path(dir, "find");
    if (typeof pattern !== "string") throw new TypeError("find pattern must be a string");
    const { limit, offset } = checkPage(options, "find");
    // The public type is the original's ("file" | "dir"); links are still listed as "symlink", as its are.
    return findPath(db, p, pattern, limit, offset) as FindEntry[];
  }

  async ls(prefix: string): Promise<string[]> {
    return lsPath(this.#ready(), this.#path(prefix, "ls"));
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const db = this.#ready();
    const p = this.#path(path, "grep");
    if (typeof pattern !== "string") throw new TypeError("grep pattern must be a string");
    const { limit, offset } = checkPage(options, "grep");
    const context = checkCount(options.context, "grep context") ?? 0;
    if (options.include !== undefined && typeof options.include !== "string") {
      throw new TypeError("grep include must be a glob string");
    }
    return grepPath(db, p, {
      matches: lineMatcher(pattern, options.regex === true, options.ignoreCase === true),
      context,
      include: options.include,
      limit,
      offset,
    });
  }

  /** Internal (not on `workspace.fs`): moves a path; used by FUSE and sync. */
  async rename(from: string, to: string): Promise<void> {
    const db = this.#ready();
    renamePath(db, this.#path(from, "rename"), this.#path(to, "rename"), this.now());
  }

  /** Internal: a second name for a file. */
  async link(existing: string, path: string): Promise<void> {
    const db = this.#ready();
    linkPath(db, this.#path(existing, "link"), this.#path(path, "link"));
  }

  /** Internal: frees unreferenced blobs and manifests older than the safety window. */
  async gc(options: GcOptions = {}): Promise<GcResult> {
    const db = this.#ready();
    const safetyWindowMs = checkCount(options.safetyWindowMs, "gc safetyWindowMs");
    return collect(db, {
      now: options.now ?? this.now(),
      ...(safetyWindowMs === undefined ? {} : { safetyWindowMs }),
    });
  }

  #ready(): Database {
    ensureSchema(this.#db, this.now());
    return this.#db;
  }
}

function checkEncoding(encoding: unknown): "utf8" {
  if (encoding !== "utf8" && encoding !== "utf-8") throw new TypeError(`unsupported encoding: ${String(encoding)}`);
  return "utf8";
}

/** Offsets and lengths are byte counts: non-negative safe integers, else EINVAL. */
function checkByteCount(value: unknown, name: string, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw fsError("EINVAL", "read", path, `${name} must be a non-negative integer`);
  }
  return value;
}

function checkMode(mode: unknown, fallback: number, syscall: string, path: string): number {
  if (mode === undefined) return fallback;
  if (typeof mode !== "number" || !Number.isSafeInteger(mode) || mode < 0) {
    throw fsError("EINVAL", syscall, path, "mode must be a non-negative integer");
  }
  return mode & MODE_MASK;
}

/** Counts in options (limit, offset, context) are non-negative safe integers, else TypeError. */
function checkCount(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function checkPage(options: PageOptions, verb: string): { limit: number | undefined; offset: number } {
  if (options === null || typeof options !== "object") throw new TypeError(`${verb} options must be an object`);
  return {
    limit: checkCount(options.limit, `${verb} limit`),
    offset: checkCount(options.offset, `${verb} offset`) ?? 0,
  };
}

function lineMatcher(pattern: string, regex: boolean, ignoreCase: boolean): (line: string) => boolean {
  if (regex) {
    let compiled: RegExp;
    try {
      compiled = new RegExp(pattern, ignoreCase ? "iu" : "u");
    } catch (error) {
      throw new TypeError(`invalid grep regex: ${(error as Error).message}`);
    }
    return (line) => compiled.test(line);
  }
  if (!ignoreCase) return (line) => line.includes(pattern);
  const needle = pattern.toLowerCase();
  return (line) => line.toLowerCase().includes(needle);
}

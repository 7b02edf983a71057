/**
 * `SQLiteWorkspaceProvider`: the original's node:fs-shaped face of the store
 * (what `workspace.provider()` returns and a mount factory gets as `vfs`):
 * `*Sync` methods and their promise twins, file descriptors, Node-like stats.
 * Every call is synchronous underneath, over the same verbs as
 * `WorkspaceFilesystem`, so both see one tree and one rev. Writes hash with
 * the driver's sync SHA-256 or a JavaScript one (workerd's is async).
 */
import { CHUNK_SIZE, DEFAULT_DIR_MODE, DEFAULT_FILE_MODE, MODE_MASK } from "./constants.js";
import type { Database } from "./database.js";
import { fsError } from "./errors.js";
import { chmod, symlink } from "./fs/change-node.js";
import { createFileInode, type DirtyChunk, inodeChunks, readChunk, writeInode } from "./fs/inode-io.js";
import { readdir, readlink, stat } from "./fs/inspect.js";
import { link } from "./fs/link.js";
import { mkdir } from "./fs/mkdir.js";
import { openForRead } from "./fs/read-file.js";
import { rename } from "./fs/rename.js";
import { rm } from "./fs/rm.js";
import { type WatchEvent, type WatchHandle, type WatchOptions, watchEvents, watchPath } from "./fs/watch.js";
import { joinPath, normalizePath } from "./path.js";
import {
  asBuffer,
  type Bytes,
  decode,
  type Encoding,
  type EncodingOption,
  encode,
  later,
  modeOf,
  parseFlags,
  predicates,
  type WriteOptions,
} from "./provider-shapes.js";
import { resolvePath } from "./resolve.js";
import { ensureSchema } from "./schema.js";
import { sha256HexSync } from "./sha256-sync.js";
import { type DurableObjectStorageLike, StorageDatabase } from "./storage-database.js";
import type { Stat } from "./types.js";

export interface SQLiteWorkspaceProviderOptions {
  now?: () => number;
  /** How often `watch` polls the store for changes, in milliseconds (default 100). */
  watchIntervalMs?: number;
}

/** Node's `fs.Stats` fields and predicates (times from the node's mtime; ids 0). */
export interface VirtualStatsLike {
  dev: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  ino: number;
  size: number;
  blocks: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
  atime: Date;
  mtime: Date;
  ctime: Date;
  birthtime: Date;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}

export interface VirtualDirentLike {
  name: string;
  parentPath: string;
  path: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}

export interface WriteFileRange {
  start: number;
  end: number;
}

/**
 * The global `Buffer` type, so the byte reads can be declared `Buffer` as the original's are,
 * without dofs depending on @types/node: dofs also type-checks (and is used) under workers-types
 * alone, which declare only `var Buffer: any`. With @types/node in the program this merges into
 * Node's own `Buffer` (same type parameter, same base) and adds nothing; without it, `Buffer` is a
 * `Uint8Array`, which is what the reads return where the platform has no Buffer (a Worker without
 * nodejs_compat). A type alias over `typeof globalThis` cannot do this: with workers-types and
 * @types/node together, the global `Buffer` value is workers-types' `any`, not Node's constructor.
 */
declare global {
  interface Buffer<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> extends Uint8Array<TArrayBuffer> {}
}

/** Bytes as Node hands them out: a `Buffer` where one exists (Node, workerd with nodejs_compat). */

interface OpenFile {
  path: string;
  position: number;
  readable: boolean;
  writable: boolean;
  append: boolean;
}

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

export class SQLiteWorkspaceProvider {
  readonly db: Database;
  readonly now: () => number;
  readonly readonly = false;
  readonly supportsSymlinks = true;
  readonly supportsWatch = true;
  readonly watchIntervalMs: number;
  readonly #files = new Map<number, OpenFile>();
  readonly #sha256: (bytes: Uint8Array) => string;
  #nextFd = 3;

  /** Over a dofs `Database`, or a storage for one (`new Database(storage)`). */
  constructor(db: Database | DurableObjectStorageLike, options: SQLiteWorkspaceProviderOptions = {}) {
    this.db = isDatabase(db) ? db : new StorageDatabase(db);
    this.now = options.now ?? Date.now;
    this.watchIntervalMs = options.watchIntervalMs ?? 100;
    const native = this.db.sha256?.bind(this.db);
    this.#sha256 = native ?? sha256HexSync;
  }

  // --- inspect -----------------------------------------------------------

  statSync(path: string, _options?: { bigint?: boolean }): VirtualStatsLike {
    return this.#stats(stat(this.#db(), this.#path(path, "stat"), true));
  }
  stat(path: string, options?: { bigint?: boolean }): Promise<VirtualStatsLike> {
    return later(() => this.statSync(path, options));
  }
  lstatSync(path: string, _options?: { bigint?: boolean }): VirtualStatsLike {
    return this.#stats(stat(this.#db(), this.#path(path, "lstat"), false));
  }
  lstat(path: string, options?: { bigint?: boolean }): Promise<VirtualStatsLike> {
    return later(() => this.lstatSync(path, options));
  }
  readdirSync(path: string, options?: { withFileTypes?: boolean }): string[] | VirtualDirentLike[] {
    const dir = this.#path(path, "scandir");
    const entries = readdir(this.#db(), dir, undefined, 0);
    if (!options?.withFileTypes) return entries.map((entry) => entry.name);
    return entries.map((entry) => ({
      name: entry.name,
      parentPath: dir,
      path: dir,
      ...predicates(entry),
    }));
  }
  readdir(path: string, options?: { withFileTypes?: boolean }): Promise<string[] | VirtualDirentLike[]> {
    return later(() => this.readdirSync(path, options));
  }
  existsSync(path: string): boolean {
    try {
      return resolvePath(this.#db(), normalizePath(path, "access"), { followFinal: true }, "access").kind === "found";
    } catch {
      return false;
    }
  }
  exists(path: string): Promise<boolean> {
    return later(() => this.existsSync(path));
  }
  accessSync(path: string, _mode?: number): void {
    this.statSync(path);
  }
  access(path: string, mode?: number): Promise<void> {
    return later(() => this.accessSync(path, mode));
  }
  /** The path with every symlink replaced by its target; ENOENT when it leads nowhere. */
  realpathSync(path: string, _options?: { encoding?: Encoding }): string {
    const normalized = this.#path(path, "realpath");
    const found = resolvePath(this.#db(), normalized, { followFinal: true }, "realpath");
    if (found.kind !== "found") throw fsError("ENOENT", "realpath", normalized);
    return found.path;
  }
  realpath(path: string, options?: { encoding?: Encoding }): Promise<string> {
    return later(() => this.realpathSync(path, options));
  }
  readlinkSync(path: string, _options?: { encoding?: Encoding }): string {
    return readlink(this.#db(), this.#path(path, "readlink"));
  }
  readlink(path: string, options?: { encoding?: Encoding }): Promise<string> {
    return later(() => this.readlinkSync(path, options));
  }

  // --- change the tree ---------------------------------------------------

  mkdirSync(path: string, options?: { recursive?: boolean; mode?: number }): string | undefined {
    mkdir(
      this.#db(),
      this.#path(path, "mkdir"),
      options?.mode ?? DEFAULT_DIR_MODE,
      options?.recursive ?? false,
      this.now(),
    );
    return undefined;
  }
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<string | undefined> {
    return later(() => this.mkdirSync(path, options));
  }
  rmdirSync(path: string): void {
    const target = this.#path(path, "rmdir");
    if (!stat(this.#db(), target, false).isDirectory) throw fsError("ENOTDIR", "rmdir", target);
    rm(this.#db(), target, false, false, this.now());
  }
  rmdir(path: string): Promise<void> {
    return later(() => this.rmdirSync(path));
  }
  unlinkSync(path: string): void {
    const target = this.#path(path, "unlink");
    if (stat(this.#db(), target, false).isDirectory) throw fsError("EISDIR", "unlink", target);
    rm(this.#db(), target, false, false, this.now());
  }
  unlink(path: string): Promise<void> {
    return later(() => this.unlinkSync(path));
  }
  linkSync(existingPath: string, newPath: string): void {
    link(this.#db(), this.#path(existingPath, "link"), this.#path(newPath, "link"));
  }
  link(existingPath: string, newPath: string): Promise<void> {
    return later(() => this.linkSync(existingPath, newPath));
  }
  renameSync(oldPath: string, newPath: string): void {
    rename(this.#db(), this.#path(oldPath, "rename"), this.#path(newPath, "rename"), this.now());
  }
  rename(oldPath: string, newPath: string): Promise<void> {
    return later(() => this.renameSync(oldPath, newPath));
  }
  symlinkSync(target: string, path: string, _type?: string): void {
    symlink(this.#db(), target, this.#path(path, "symlink"), this.now());
  }
  symlink(target: string, path: string, type?: string): Promise<void> {
    return later(() => this.symlinkSync(target, path, type));
  }
  chmodSync(path: string, mode: number): void {
    chmod(this.#db(), this.#path(path, "chmod"), mode & MODE_MASK, this.now());
  }

  // --- whole files ---------------------------------------------------------

  readFileSync(path: string, options?: EncodingOption): Bytes | string {
    const bytes = this.#read(this.#path(path, "open"), 0, undefined);
    const encoding = typeof options === "string" ? options : (options?.encoding ?? undefined);
    return encoding ? decode(bytes, encoding) : asBuffer(bytes);
  }
  readFile(path: string, options?: EncodingOption): Promise<Bytes | string> {
    return later(() => this.readFileSync(path, options));
  }
  writeFileSync(path: string, data: string | Uint8Array, options?: WriteOptions): void {
    const target = this.#path(path, "open");
    const bytes = encode(data, options);
    this.#rewrite(target, bytes.byteLength, [{ offset: 0, bytes }], modeOf(options), true);
  }
  writeFile(path: string, data: string | Uint8Array, options?: WriteOptions): Promise<void> {
    return later(() => this.writeFileSync(path, data, options));
  }
  appendFileSync(path: string, data: string | Uint8Array, options?: WriteOptions): void {
    const target = this.#path(path, "open");
    const bytes = encode(data, options);
    const size = this.#sizeOrUndefined(target) ?? 0;
    this.#rewrite(target, size + bytes.byteLength, [{ offset: size, bytes }], modeOf(options), false);
  }
  appendFile(path: string, data: string | Uint8Array, options?: WriteOptions): Promise<void> {
    return later(() => this.appendFileSync(path, data, options));
  }
  copyFileSync(src: string, dest: string, mode?: number): void {
    // COPYFILE_EXCL (1): fail when the destination exists.
    const to = this.#path(dest, "copyfile");
    if ((mode ?? 0) & 1 && this.existsSync(to)) throw fsError("EEXIST", "copyfile", to);
    const bytes = this.#read(this.#path(src, "copyfile"), 0, undefined);
    this.#rewrite(to, bytes.byteLength, [{ offset: 0, bytes }], undefined, true);
  }
  copyFile(src: string, dest: string, mode?: number): Promise<void> {
    return later(() => this.copyFileSync(src, dest, mode));
  }
  /** Creates an empty file (EEXIST when the path is taken). */
  createFileSync(path: string, options?: { mode?: number }): void {
    const target = this.#path(path, "open");
    createFileInode(this.#db(), target, (options?.mode ?? DEFAULT_FILE_MODE) & MODE_MASK, this.#sha256, this.now());
  }
  /** Replaces the file's bytes with `data` in `ranges` of it, the rest zeros; the size is `data`'s. */
  writeFileRangesSync(path: string, data: string | Uint8Array, ranges: WriteFileRange[], options?: WriteOptions): void {
    const target = this.#path(path, "open");
    const bytes = encode(data, options);
    const patches = ranges.map(({ start, end }) => ({ offset: start, bytes: bytes.subarray(start, end) }));
    this.#rewrite(target, bytes.byteLength, patches, modeOf(options), true);
  }
  /** Writes `data` at `offset` (growing the file, zeros in any gap). Returns bytes written. */
  writeRangeSync(path: string, data: string | Uint8Array, offset: number, options?: WriteOptions): number {
    const target = this.#path(path, "write");
    const bytes = encode(data, options);
    const size = this.#sizeOrUndefined(target) ?? 0;
    this.#rewrite(target, Math.max(size, offset + bytes.byteLength), [{ offset, bytes }], modeOf(options), false);
    return bytes.byteLength;
  }
  readRangeSync(path: string, offset: number, length: number): Bytes {
    return asBuffer(this.#read(this.#path(path, "read"), offset, length));
  }
  truncateFileSync(path: string, len: number): void {
    this.truncateSync(path, len);
  }
  truncateSync(path: string, len: number): void {
    const target = this.#path(path, "open");
    if (!Number.isSafeInteger(len) || len < 0) throw fsError("EINVAL", "ftruncate", target);
    const size = this.#sizeOrUndefined(target);
    if (size === undefined) throw fsError("ENOENT", "open", target);
    this.#rewrite(target, len, [], undefined, false);
  }
  /** The original buffers FUSE writes in these; here every write lands at once, so there is nothing to open or release. */
  openWriteBufferSync(path: string): void {
    this.statSync(path);
  }
  openWriteBufferForCreateSync(path: string, options?: { mode?: number }): void {
    if (!this.existsSync(path)) this.createFileSync(path, options);
  }
  releaseWriteBufferSync(_path: string): void {}

  // --- descriptors ---------------------------------------------------------

  openSync(path: string, flags = "r", mode?: number): number {
    const target = this.#path(path, "open");
    const parsed = parseFlags(flags);
    const size = this.#sizeOrUndefined(target);
    if (size === undefined) {
      if (!parsed.create) throw fsError("ENOENT", "open", target);
      this.createFileSync(target, mode === undefined ? {} : { mode });
    } else {
      if (parsed.exclusive) throw fsError("EEXIST", "open", target);
      if (parsed.truncate && size > 0) this.truncateSync(target, 0);
    }
    const fd = this.#nextFd++;
    this.#files.set(fd, { path: target, position: 0, ...parsed });
    return fd;
  }
  open(path: string, flags?: string, mode?: number): Promise<number> {
    return later(() => this.openSync(path, flags, mode));
  }
  closeSync(fd: number): void {
    if (!this.#files.delete(fd)) throw fsError("EBADF", "close");
  }
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number {
    const file = this.#file(fd, "read");
    if (!file.readable) throw fsError("EBADF", "read");
    const at = position ?? file.position;
    const bytes = this.#read(file.path, at, length);
    buffer.set(bytes, offset);
    if (position === null || position === undefined) file.position = at + bytes.byteLength;
    return bytes.byteLength;
  }
  writeSync(
    fd: number,
    buffer: Uint8Array,
    offset = 0,
    length = buffer.byteLength - offset,
    position: number | null = null,
  ): number {
    const file = this.#file(fd, "write");
    if (!file.writable) throw fsError("EBADF", "write");
    const at = file.append ? (this.#sizeOrUndefined(file.path) ?? 0) : (position ?? file.position);
    const written = this.writeRangeSync(file.path, buffer.subarray(offset, offset + length), at);
    if (position === null || position === undefined || file.append) file.position = at + written;
    return written;
  }
  fstatSync(fd: number, _options?: { bigint?: boolean }): VirtualStatsLike {
    return this.statSync(this.#file(fd, "fstat").path);
  }
  ftruncateSync(fd: number, len: number): void {
    const file = this.#file(fd, "ftruncate");
    if (!file.writable) throw fsError("EINVAL", "ftruncate", file.path);
    this.truncateSync(file.path, len);
  }

  // --- watching (polling; fs/watch.ts) ----------------------------------------

  /** A watcher of `path` (and its children; everything below with `recursive`), polled every `watchIntervalMs`. */
  watch(path: string, options: WatchOptions = {}): WatchHandle {
    return watchPath(this.#db(), this.#path(path, "watch"), options, this.watchIntervalMs);
  }
  /** `watch` as an async iterable of `{ eventType, filename }`; leaving the loop closes the watcher. */
  watchAsync(path: string, options: WatchOptions = {}): AsyncIterable<WatchEvent> {
    return watchEvents(this.watch(path, options));
  }

  // --- not offered -----------------------------------------------------------

  watchFile(path: string, _options?: unknown, _listener?: unknown): never {
    throw fsError("ENOSYS", "watch", path);
  }
  unwatchFile(path: string, _listener?: unknown): never {
    throw fsError("ENOSYS", "watch", path);
  }
  internalModuleStat(path: string): number {
    // Node's loader probe: 0 file, 1 directory, negative when absent.
    try {
      return this.statSync(path).isDirectory() ? 1 : 0;
    } catch {
      return -2;
    }
  }

  // --- internals -------------------------------------------------------------

  #db(): Database {
    ensureSchema(this.db, this.now());
    return this.db;
  }

  #path(path: string, syscall: string): string {
    return normalizePath(path, syscall);
  }

  #file(fd: number, syscall: string): OpenFile {
    const file = this.#files.get(fd);
    if (file === undefined) throw fsError("EBADF", syscall);
    return file;
  }

  #stats(s: Stat): VirtualStatsLike {
    const db = this.#db();
    const nlink = s.isFile
      ? Math.max(
          1,
          Number(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_dirents WHERE child_inode = ?", s.inode)?.n),
        )
      : 1;
    const type = s.isDirectory ? S_IFDIR : s.isSymbolicLink ? S_IFLNK : S_IFREG;
    const time = () => new Date(s.mtime);
    return {
      dev: 0,
      mode: type | s.mode,
      nlink,
      uid: 0,
      gid: 0,
      rdev: 0,
      blksize: 4096,
      ino: s.inode,
      size: s.size,
      blocks: Math.ceil(s.size / 512),
      atimeMs: s.mtime,
      mtimeMs: s.mtime,
      ctimeMs: s.mtime,
      birthtimeMs: s.mtime,
      atime: time(),
      mtime: time(),
      ctime: time(),
      birthtime: time(),
      ...predicates(s),
    };
  }

  /** A file's size following links; undefined when nothing is there. EISDIR for a directory. */
  #sizeOrUndefined(path: string): number | undefined {
    const found = resolvePath(this.#db(), path, { followFinal: true }, "open");
    if (found.kind !== "found") return undefined;
    if (found.node.type === "dir") throw fsError("EISDIR", "open", path);
    return Number(found.node.size);
  }

  #read(path: string, offset: number, length: number | undefined): Uint8Array {
    const db = this.#db();
    const node = openForRead(db, path);
    const size = Number(node.size);
    const end = Math.min(size, length === undefined ? size : offset + length);
    if (offset >= end) return new Uint8Array(0);
    const out = new Uint8Array(end - offset);
    const chunks = inodeChunks(db, Number(node.inode));
    for (let idx = Math.floor(offset / CHUNK_SIZE); idx * CHUNK_SIZE < end; idx++) {
      const chunk = chunks[idx];
      if (chunk === undefined) throw fsError("EIO", "read", path, `chunk ${idx} is missing`);
      const bytes = readChunk(db, chunk, path);
      const base = idx * CHUNK_SIZE;
      const from = Math.max(offset, base);
      const to = Math.min(end, base + bytes.byteLength);
      out.set(bytes.subarray(from - base, to - base), from - offset);
    }
    return out;
  }

  /**
   * Sets a file to `size` bytes: its old bytes where `replace` is false (zeros
   * otherwise, and past the old end), with `patches` laid over them, in one
   * transaction. Only the chunks a patch or the new end touches are hashed
   * and stored. Creates the file (with `mode`) when it is missing; an
   * existing file keeps its mode, as in Node.
   */
  #rewrite(
    path: string,
    size: number,
    patches: { offset: number; bytes: Uint8Array }[],
    mode: number | undefined,
    replace: boolean,
  ): void {
    const db = this.#db();
    db.transaction(() => {
      let found = resolvePath(db, path, { followFinal: true }, "open");
      if (found.kind === "found" && found.node.type === "dir") throw fsError("EISDIR", "open", path);
      if (found.kind !== "found") {
        const at = found.kind === "missing" ? joinPath(found.parentPath, found.name) : path;
        createFileInode(db, at, (mode ?? DEFAULT_FILE_MODE) & MODE_MASK, this.#sha256, this.now());
        found = resolvePath(db, at, { followFinal: true }, "open");
        if (found.kind !== "found") throw fsError("EIO", "open", path);
      }
      const inode = Number(found.node.inode);
      const oldSize = replace ? 0 : Number(found.node.size);
      const old = replace ? [] : inodeChunks(db, inode);
      const touched = new Set<number>();
      for (const { offset, bytes } of patches) {
        if (bytes.byteLength === 0) continue;
        for (let idx = Math.floor(offset / CHUNK_SIZE); idx * CHUNK_SIZE < offset + bytes.byteLength; idx++)
          touched.add(idx);
      }
      // The chunk the old end falls in, and every one from there to the new end, change length.
      const count = Math.ceil(size / CHUNK_SIZE);
      const keep = Math.min(Math.floor(oldSize / CHUNK_SIZE), Math.floor(size / CHUNK_SIZE));
      for (let idx = keep; idx < count; idx++) touched.add(idx);
      const dirty: DirtyChunk[] = [];
      for (const idx of [...touched].sort((a, b) => a - b)) {
        if (idx >= count) continue;
        const base = idx * CHUNK_SIZE;
        const bytes = new Uint8Array(Math.min(CHUNK_SIZE, size - base));
        const stored = old[idx];
        if (stored !== undefined && base < oldSize) {
          const prior = readChunk(db, stored, path);
          bytes.set(prior.subarray(0, Math.min(prior.byteLength, bytes.byteLength, oldSize - base)));
        }
        for (const { offset, bytes: patch } of patches) {
          const from = Math.max(offset, base);
          const to = Math.min(offset + patch.byteLength, base + bytes.byteLength);
          if (from < to) bytes.set(patch.subarray(from - offset, to - offset), from - base);
        }
        dirty.push({ idx, bytes });
      }
      writeInode(
        db,
        inode,
        { size, mtime: this.now(), dirty, sha256: this.#sha256, path, ...(replace ? { cutAt: 0 } : {}) },
        this.now(),
      );
    });
  }
}

function isDatabase(value: Database | DurableObjectStorageLike): value is Database {
  return typeof (value as Database).all === "function" && typeof (value as Database).transaction === "function";
}

/**
 * The fsx target over dofs' own API (runtime-neutral: better-sqlite3 in
 * Node, a Durable Object's SQLite in workerd). dofs has no truncate or
 * positional write of its own; a mount driver builds them on the inode
 * verbs, so this target does the same, thinly: range writes and truncates
 * go to per-chunk buffers, and every commit point (fsync, pull, reopen, a
 * truncate while closed) lands them with one `writeInode` (dirty and shared
 * chunks, and `cutAt` when a truncate cut the file since the last commit).
 * Reads of a committed file go through `readFile` with byteOffset/byteLength;
 * `reopen O_TRUNC` is a `writeFile` of nothing. copy_file_range shares whole
 * stored chunks by hash. An mmap write is a write inside the size.
 *
 * The pull is a loopback: a Durable Object's body cannot touch a second
 * object's storage, so the peer's change stream (SyncPeer.fetchChanges) is
 * pulled by the real `pullOnce` into the same database with the file's path
 * moved under /peer; `applyChanges` then replaces /peer's copy, shrunk or
 * grown, like any pulled file.
 */
import { CHUNK_SIZE } from "../src/constants.js";
import type { Database } from "../src/database.js";
import type { WorkspaceFilesystem } from "../src/filesystem.js";
import {
  type DirtyChunk,
  inodeChunks,
  lookupInode,
  readChunk,
  type SharedChunk,
  writeInode,
} from "../src/fs/inode-io.js";
import type { ChunkRef } from "../src/manifest.js";
import { SyncPeer } from "../src/sync/peer.js";
import { pullOnce } from "../src/sync/pull.js";
import type { ChangeEntry, SyncRPC } from "../src/sync/types.js";
import type { FsxOp, FsxTarget } from "./fsx.js";
import { bytesOf } from "./util.js";

const PEER_DIR = "/peer";

type Hash = (bytes: Uint8Array) => string;

/** A synchronous SHA-256: the Node driver's own, else node:crypto through nodejs_compat (workerd). */
function syncSha256(db: Database): Hash {
  if (db.sha256) return db.sha256.bind(db);
  const builtin = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule;
  const crypto = builtin?.("node:crypto") as
    | { createHash(algorithm: string): { update(bytes: Uint8Array): { digest(encoding: "hex"): string } } }
    | undefined;
  if (crypto === undefined) throw new Error("no synchronous SHA-256 here (need nodejs_compat)");
  return (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");
}

/** The peer's stream, with the fsx files moved under /peer and everything else left out. */
function loopback(peer: SyncPeer, prefix: string): SyncRPC {
  return {
    push: (request) => peer.push(request),
    watermarks: (options) => peer.watermarks(options),
    readEntry: (path) => peer.readEntry(path),
    hasObjects: (hashes) => peer.hasObjects(hashes),
    fetchObjects: (hashes) => peer.fetchObjects(hashes),
    pushObjects: (objects) => peer.pushObjects(objects),
    async fetchChanges(request) {
      const result = await peer.fetchChanges(request);
      const moved = new TransformStream<ChangeEntry, ChangeEntry>({
        transform(entry, controller) {
          if (entry.path.startsWith(prefix)) controller.enqueue({ ...entry, path: PEER_DIR + entry.path });
        },
      });
      return { ...result, stream: result.stream.pipeThrough(moved) };
    },
  };
}

export class DofsFsxTarget implements FsxTarget {
  readonly name: string;
  readonly #db: Database;
  readonly #fs: WorkspaceFilesystem;
  readonly #path: string;
  readonly #sha256: Hash;
  readonly #peer: SyncRPC;
  #inode = 0;
  #size = 0;
  #stored: ChunkRef[] = [];
  readonly #dirty = new Map<number, Uint8Array>();
  readonly #shared = new Map<number, ChunkRef>();
  #cutAt = Number.POSITIVE_INFINITY;
  #changed = false;
  #clock = 1;
  #cached: { hash: string; bytes: Uint8Array } | undefined;

  private constructor(name: string, db: Database, fs: WorkspaceFilesystem, path: string) {
    this.name = name;
    this.#db = db;
    this.#fs = fs;
    this.#path = path;
    this.#sha256 = syncSha256(db);
    this.#peer = loopback(new SyncPeer(db), "/fsx-");
  }

  /** A new empty file at `path` (which must start with /fsx-). */
  static async create(name: string, db: Database, fs: WorkspaceFilesystem, path: string): Promise<DofsFsxTarget> {
    const target = new DofsFsxTarget(name, db, fs, path);
    await fs.writeFile(path, new Uint8Array(0));
    target.#reload();
    return target;
  }

  async apply(op: FsxOp, data: Uint8Array | undefined): Promise<void> {
    switch (op.kind) {
      case "write":
      case "mmap":
        if (data !== undefined && data.length > 0) this.#write(op.offset, data);
        return;
      case "truncate":
        if (op.via === "closed") this.#commit();
        this.#truncate(op.size);
        if (op.via === "closed") this.#commit();
        return;
      case "copy":
        this.#copy(op.src, op.dst, op.length);
        return;
      case "fsync":
        this.#commit();
        return;
      case "pull":
        this.#commit();
        await pullOnce({ db: this.#db, peer: "fsx-loopback" }, this.#peer);
        return;
      case "reopen":
        this.#commit();
        if (op.trunc) await this.#fs.writeFile(this.#path, new Uint8Array(0));
        this.#reload();
        return;
    }
  }

  async size(): Promise<number> {
    return this.#changed ? this.#size : (lookupInode(this.#db, this.#path)?.size ?? -1);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!this.#changed) {
      return bytesOf(await this.#fs.readFile(this.#path, { byteOffset: offset, byteLength: length }));
    }
    const out = new Uint8Array(length);
    for (let at = offset; at < offset + length; ) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const within = at - idx * CHUNK_SIZE;
      const take = Math.min(CHUNK_SIZE - within, offset + length - at);
      const view = this.#view(idx);
      out.set(view.subarray(within, Math.min(view.length, within + take)), at - offset);
      at += take;
    }
    return out;
  }

  async pulled(): Promise<Uint8Array> {
    return bytesOf(await this.#fs.readFile(PEER_DIR + this.#path));
  }

  async close(): Promise<void> {
    try {
      this.#commit();
    } finally {
      await this.#fs.rm(this.#path);
      await this.#fs.rm(PEER_DIR + this.#path, { force: true });
    }
  }

  #reload(): void {
    const attr = lookupInode(this.#db, this.#path);
    if (attr === undefined) throw new Error(`${this.#path} is gone`);
    this.#inode = attr.inode;
    this.#size = attr.size;
    this.#stored = inodeChunks(this.#db, attr.inode);
  }

  /** Chunk `idx` as it stands: dirty, shared, stored (unless a truncate cut it off), or nothing (zeros). */
  #view(idx: number): Uint8Array {
    const dirty = this.#dirty.get(idx);
    if (dirty !== undefined) return dirty;
    const ref = this.#clean(idx);
    if (ref === undefined) return EMPTY;
    // Compares read the same chunk several times in a row: keep the last one (blobs never change under a hash).
    if (this.#cached?.hash !== ref.hash) this.#cached = { hash: ref.hash, bytes: readChunk(this.#db, ref, this.#path) };
    return this.#cached.bytes;
  }

  #clean(idx: number): ChunkRef | undefined {
    if (this.#dirty.has(idx)) return undefined;
    const shared = this.#shared.get(idx);
    if (shared !== undefined) return shared;
    return (idx + 1) * CHUNK_SIZE <= this.#cutAt ? this.#stored[idx] : undefined;
  }

  /** A full-size buffer for chunk `idx`, holding its current bytes; zeros past them. */
  #writable(idx: number): Uint8Array {
    let buffer = this.#dirty.get(idx);
    if (buffer === undefined) {
      buffer = new Uint8Array(CHUNK_SIZE);
      buffer.set(this.#view(idx).subarray(0, CHUNK_SIZE));
      this.#dirty.set(idx, buffer);
      this.#shared.delete(idx);
    }
    return buffer;
  }

  #write(offset: number, data: Uint8Array): void {
    for (let at = offset; at < offset + data.length; ) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const within = at - idx * CHUNK_SIZE;
      const take = Math.min(CHUNK_SIZE - within, offset + data.length - at);
      this.#writable(idx).set(data.subarray(at - offset, at - offset + take), within);
      at += take;
    }
    this.#size = Math.max(this.#size, offset + data.length);
    this.#changed = true;
  }

  #truncate(size: number): void {
    if (size < this.#size) {
      const count = Math.ceil(size / CHUNK_SIZE);
      for (const idx of [...this.#dirty.keys(), ...this.#shared.keys()]) {
        if (idx >= count) {
          this.#dirty.delete(idx);
          this.#shared.delete(idx);
        }
      }
      if (size % CHUNK_SIZE !== 0) this.#writable(count - 1).fill(0, size % CHUNK_SIZE);
      this.#cutAt = Math.min(this.#cutAt, size);
    }
    this.#size = size;
    this.#changed = true;
  }

  /** Whole clean chunks are shared by hash when nothing of the destination chunk shows past them; the rest is copied. */
  #copy(src: number, dst: number, length: number): void {
    const end = Math.min(this.#size, src + length);
    for (let at = src, to = dst; at < end; ) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const take = Math.min(CHUNK_SIZE - (at - idx * CHUNK_SIZE), end - at);
      const whole =
        at % CHUNK_SIZE === 0 &&
        to % CHUNK_SIZE === 0 &&
        (take === CHUNK_SIZE || (at + take === this.#size && to + take >= this.#size));
      const ref = whole ? this.#clean(idx) : undefined;
      if (ref !== undefined && ref.size === take) {
        this.#dirty.delete(to / CHUNK_SIZE);
        this.#shared.set(to / CHUNK_SIZE, ref);
        this.#size = Math.max(this.#size, to + take);
        this.#changed = true;
      } else {
        // A copy, not a view: zeros where the chunk's bytes end short of the piece (a grown hole).
        const piece = new Uint8Array(take);
        piece.set(this.#view(idx).subarray(at - idx * CHUNK_SIZE, at - idx * CHUNK_SIZE + take));
        this.#write(to, piece);
      }
      at += take;
      to += take;
    }
  }

  /** Lands everything buffered with one writeInode; a chunk of the wrong stored length is sent again, zero-padded. */
  #commit(): void {
    if (!this.#changed) return;
    const count = Math.ceil(this.#size / CHUNK_SIZE);
    const dirty: DirtyChunk[] = [];
    const shared: SharedChunk[] = [];
    for (let idx = 0; idx < count; idx++) {
      const expected = Math.min(CHUNK_SIZE, this.#size - idx * CHUNK_SIZE);
      const ref = this.#clean(idx);
      if (ref !== undefined && ref.size === expected) {
        if (this.#shared.has(idx)) shared.push({ idx, ...ref });
        continue;
      }
      dirty.push({ idx, bytes: this.#writable(idx).subarray(0, expected) });
    }
    writeInode(
      this.#db,
      this.#inode,
      {
        size: this.#size,
        mtime: this.#clock++,
        dirty,
        shared,
        sha256: this.#sha256,
        path: this.#path,
        cutAt: this.#cutAt,
      },
      Date.now(),
    );
    this.#dirty.clear();
    this.#shared.clear();
    this.#cutAt = Number.POSITIVE_INFINITY;
    this.#changed = false;
    this.#reload();
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The write buffer of one open file (one per inode, shared by every handle
 * on it). Writes land in pooled 512 KiB chunk buffers; only those dirty
 * chunks are hashed and stored on commit, the clean ones keep their hashes.
 * Reads see the dirty chunks first, so nothing needs committing to be read
 * back. A commit happens on fsync, on the last release, before every
 * fetchChanges (so the Durable Object pulls what the mount holds), and when
 * one file's dirty bytes pass DIRTY_LIMIT.
 */
import { CHUNK_SIZE, type ChunkRef, type Database } from "@cloudflare/dofs";
import { type DirtyChunk, inodeChunks, readChunk, writeInode } from "@cloudflare/dofs/inode";
import type { BufferPool } from "./pool.js";

/** Past this many dirty bytes in one file, a write commits first: memory stays bounded. */
export const DIRTY_LIMIT = 64 * 1024 * 1024;

export class OpenFile {
  readonly inode: number;
  size: number;
  mtime: number;
  /** Handles open on this inode. */
  refs = 0;
  /** The last name this file was opened under: for error messages and the read-only check. */
  path: string;
  /** Set when the file's last name went while it was open: it lives on in memory only, and never commits. */
  detached = false;
  readonly #dirty = new Map<number, Buffer>();
  /** Size or mtime changed without dirty bytes (a truncate that grows, say). */
  #changed = false;
  /** The stored chunk list, loaded on first need and after each commit. */
  #chunks: ChunkRef[] | undefined;
  /** The last clean chunk read (sequential reads ask for it 4 times at 128 KiB). */
  #cached: { idx: number; hash: string; bytes: Uint8Array } | undefined;
  readonly #db: Database;
  readonly #pool: BufferPool;

  constructor(db: Database, pool: BufferPool, inode: number, size: number, mtime: number, path: string) {
    this.#db = db;
    this.#pool = pool;
    this.inode = inode;
    this.size = size;
    this.mtime = mtime;
    this.path = path;
  }

  get isDirty(): boolean {
    return this.#dirty.size > 0 || this.#changed;
  }

  get dirtyBytes(): number {
    return this.#dirty.size * CHUNK_SIZE;
  }

  /** Forgets the cached chunk list (a sync apply may have replaced the file under us). */
  invalidate(): void {
    this.#chunks = undefined;
    this.#cached = undefined;
  }

  /** Keeps the stored chunks readable after the inode's rows are gone (the blobs stay until gc). */
  detach(): void {
    this.#storedChunks();
    this.detached = true;
  }

  read(target: Buffer, length: number, position: number): number {
    const end = Math.min(this.size, position + length);
    let at = position;
    while (at < end) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const offset = at - idx * CHUNK_SIZE;
      const take = Math.min(CHUNK_SIZE - offset, end - at);
      const dirty = this.#dirty.get(idx);
      if (dirty !== undefined) {
        dirty.copy(target, at - position, offset, offset + take);
      } else {
        const stored = this.#cleanChunk(idx);
        const available = Math.max(0, Math.min(take, stored.byteLength - offset));
        if (available > 0) target.set(stored.subarray(offset, offset + available), at - position);
        // Past a stored chunk's end (a file grown by truncate): zeros.
        if (available < take) target.fill(0, at - position + available, at - position + take);
      }
      at += take;
    }
    return Math.max(0, end - position);
  }

  write(source: Buffer, length: number, position: number, now: number): number {
    const end = position + length;
    let at = position;
    while (at < end) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const offset = at - idx * CHUNK_SIZE;
      const take = Math.min(CHUNK_SIZE - offset, end - at);
      const chunk = this.#dirtyChunk(idx, offset, take);
      source.copy(chunk, offset, at - position, at - position + take);
      at += take;
    }
    if (end > this.size) this.size = end;
    this.mtime = now;
    return length;
  }

  truncate(size: number, now: number): void {
    if (size < this.size) {
      const count = Math.ceil(size / CHUNK_SIZE);
      for (const [idx, buffer] of this.#dirty) {
        if (idx >= count) {
          this.#dirty.delete(idx);
          this.#pool.give(buffer);
        }
      }
      // The new last chunk is cut inside: make it dirty now with zeros past the cut, so growing
      // the file again later reads zeros rather than the old bytes.
      const tail = size % CHUNK_SIZE;
      if (tail !== 0) {
        const idx = count - 1;
        const chunk = this.#dirtyChunk(idx, 0, 0);
        chunk.fill(0, tail);
      }
    }
    this.size = size;
    this.mtime = now;
    this.#changed = true;
  }

  /**
   * Stores the dirty chunks (hashing only those) with the new size and mtime
   * in one transaction, and hands the buffers back to the pool.
   */
  commit(sha256: (bytes: Uint8Array) => string, now: number): void {
    if (this.detached || !this.isDirty) return;
    const count = Math.ceil(this.size / CHUNK_SIZE);
    const stored = this.#storedChunks();
    // A chunk whose stored length no longer matches (an old last chunk before a grow, a gap
    // after a sparse write) must be rewritten with zeros filling it.
    for (let idx = 0; idx < count; idx++) {
      if (this.#dirty.has(idx)) continue;
      const expected = Math.min(CHUNK_SIZE, this.size - idx * CHUNK_SIZE);
      if (stored[idx]?.size !== expected) this.#dirtyChunk(idx, 0, 0);
    }
    const dirty: DirtyChunk[] = [];
    for (const [idx, buffer] of this.#dirty) {
      if (idx >= count) continue;
      const length = Math.min(CHUNK_SIZE, this.size - idx * CHUNK_SIZE);
      dirty.push({ idx, bytes: buffer.subarray(0, length) });
    }
    writeInode(this.#db, this.inode, { size: this.size, mtime: this.mtime, dirty, sha256, path: this.path }, now);
    this.release();
    this.#changed = false;
    this.invalidate();
  }

  /** Drops every dirty buffer (after a commit, or when the file is gone). */
  release(): void {
    for (const buffer of this.#dirty.values()) this.#pool.give(buffer);
    this.#dirty.clear();
  }

  #storedChunks(): ChunkRef[] {
    this.#chunks ??= inodeChunks(this.#db, this.inode);
    return this.#chunks;
  }

  #cleanChunk(idx: number): Uint8Array {
    const ref = this.#storedChunks()[idx];
    if (ref === undefined) return EMPTY;
    if (this.#cached?.idx === idx && this.#cached.hash === ref.hash) return this.#cached.bytes;
    const bytes = readChunk(this.#db, ref, this.path);
    this.#cached = { idx, hash: ref.hash, bytes };
    return bytes;
  }

  /**
   * The dirty buffer of chunk `idx`, created on first write. Its current bytes
   * are loaded only when the write leaves part of the stored chunk showing;
   * everything past the stored bytes is zeroed.
   */
  #dirtyChunk(idx: number, offset: number, length: number): Buffer {
    const existing = this.#dirty.get(idx);
    if (existing !== undefined) return existing;
    const buffer = this.#pool.take();
    const start = idx * CHUNK_SIZE;
    const live = Math.max(0, Math.min(CHUNK_SIZE, this.size - start));
    const covered = offset === 0 && length >= live;
    let filled = 0;
    if (live > 0 && !covered) {
      const stored = this.#cleanChunk(idx);
      filled = Math.min(live, stored.byteLength);
      buffer.set(stored.subarray(0, filled), 0);
    }
    // Zero what the write will not cover, so gaps read as zeros (the write fills its own range).
    if (offset > filled) buffer.fill(0, filled, offset);
    const after = Math.max(filled, offset + length);
    if (after < CHUNK_SIZE) buffer.fill(0, after);
    this.#dirty.set(idx, buffer);
    return buffer;
  }
}

const EMPTY = new Uint8Array(0);

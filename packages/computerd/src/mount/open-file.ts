/**
 * The write buffer of one file (one per inode, shared by every handle on it).
 * Each 512 KiB chunk of the file is, in order of precedence:
 * - dirty: its bytes in a Buffer (a pooled chunk buffer, a compacted copy of
 *   a short last chunk, or a frozen buffer shared with another file);
 * - shared: a reference to a blob already stored (copied by copy_file_range
 *   from another file), so nothing is hashed or stored again;
 * - stored: the chunk the store's manifest names, unless a truncate since
 *   the last commit cut it off (`#cutAt`): then it is gone, and a file grown
 *   again reads zeros there, not the old bytes.
 * Reads see that order, so nothing needs committing to be read back. A commit
 * hashes only the dirty chunks and keeps every other hash (`writeInode`, one
 * transaction, one rev). When commits happen is MountFs's choice.
 */
import { CHUNK_SIZE, type ChunkRef, type Database } from "@cloudflare/dofs";
import { type DirtyChunk, inodeChunks, readChunk, type SharedChunk, writeInode } from "@cloudflare/dofs/inode";
import type { BufferPool } from "./pool.js";

export class OpenFile {
  /** Its inode; an O_TMPFILE file takes a store inode when linkat names it (`named`). */
  inode: number;
  size: number;
  mtime: number;
  /** Permission bits, kept here once the file's last name is gone (fchmod of a file unlinked while open). */
  mode = 0o644;
  /** Permission bits a chmod set while the file had uncommitted bytes: the commit stores them with the bytes. */
  pendingMode: number | undefined;
  /** Handles open on this inode. */
  refs = 0;
  /** The last name this file was opened under: for error messages and the read-only check. */
  path: string;
  /** The file had more than one name when last opened (or got one since). */
  shared = false;
  /** Set when the file's last name went while it was open: it lives on in memory only, and never commits. */
  detached = false;
  readonly #dirty = new Map<number, Buffer>();
  readonly #shared = new Map<number, ChunkRef>();
  /** Size or mtime changed without dirty bytes (a truncate that grows, say). */
  #changed = false;
  /**
   * The smallest size a truncate left since the last commit (Infinity when
   * none): stored chunks not wholly below it are void, because the store
   * still holds the file's old chunks until the next commit.
   */
  #cutAt = Number.POSITIVE_INFINITY;
  /** The stored chunk list, loaded on first need and after each commit. */
  #chunks: ChunkRef[] | undefined;
  /** The last clean chunk read (sequential reads ask for it several times). */
  #cached: { hash: string; bytes: Uint8Array } | undefined;
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
    return this.#dirty.size > 0 || this.#shared.size > 0 || this.#changed || this.pendingMode !== undefined;
  }

  /** Bytes held in memory for dirty chunks. */
  get dirtyBytes(): number {
    let total = 0;
    for (const buffer of this.#dirty.values()) total += buffer.byteLength;
    return total;
  }

  /**
   * Adds the stored blobs this file may still read or link that its inode's
   * rows may not name: chunks shared by copy_file_range and not committed,
   * and the chunk list it loaded (all a file unlinked while open, or deleted
   * by a push, can still read).
   */
  heldChunks(into: Set<string>): void {
    for (const ref of this.#shared.values()) into.add(ref.hash);
    if (this.#chunks !== undefined) for (const ref of this.#chunks) into.add(ref.hash);
  }

  /** Forgets the cached chunk list (a sync apply may have replaced the file under us). */
  invalidate(): void {
    this.#chunks = undefined;
    this.#cached = undefined;
  }

  /**
   * Keeps the stored chunks readable after the inode's rows are gone (the
   * blobs stay until gc). `storedEmpty`: the store holds none for it (its
   * stored size is 0, as for a file tar -x made and parked).
   */
  detach(storedEmpty = false): void {
    // An empty file has no chunks to keep (rm -rf of a tree of them asks nothing).
    if (storedEmpty || this.size === 0) this.#chunks ??= [];
    this.#storedChunks();
    this.detached = true;
  }

  /**
   * An O_TMPFILE file, in memory until now, has a name: its bytes become
   * the new (empty) store inode's, and commit there from now on.
   */
  named(inode: number, path: string): void {
    this.inode = inode;
    this.path = path;
    this.detached = false;
    this.#chunks = [];
    this.#cached = undefined;
    this.#changed = true;
  }

  /** Loads the stored chunk list now, while the inode's rows still exist (a push may delete them). */
  keepStoredChunks(): void {
    this.#storedChunks();
  }

  /** A sync apply replaced this clean file's content: take the store's size and time, forget its chunks. */
  reload(size: number, mtime: number): void {
    this.size = size;
    this.mtime = mtime;
    this.#cutAt = Number.POSITIVE_INFINITY;
    this.invalidate();
  }

  read(target: Buffer, length: number, position: number): number {
    const end = Math.min(this.size, position + length);
    let at = position;
    while (at < end) {
      const idx = Math.floor(at / CHUNK_SIZE);
      const offset = at - idx * CHUNK_SIZE;
      const take = Math.min(CHUNK_SIZE - offset, end - at);
      const source = this.#dirty.get(idx) ?? this.#cleanChunk(idx);
      const available = Math.max(0, Math.min(take, source.byteLength - offset));
      if (available > 0) target.set(source.subarray(offset, offset + available), at - position);
      // Past a chunk's bytes (a file grown by truncate, a compacted tail): zeros.
      if (available < take) target.fill(0, at - position + available, at - position + take);
      at += take;
    }
    return Math.max(0, end - position);
  }

  /** Copies `source` into the chunks it covers (the binding's buffer is not ours to keep). */
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

  /**
   * Makes chunk `idx` of this file the stored blob `ref` (all of it): the
   * zero-copy half of copy_file_range. The caller checks that `ref` fills the
   * chunk up to this file's end.
   */
  share(idx: number, ref: ChunkRef, now: number): void {
    this.#drop(idx);
    this.#shared.set(idx, ref);
    const end = idx * CHUNK_SIZE + ref.size;
    if (end > this.size) this.size = end;
    this.mtime = now;
  }

  /**
   * Makes chunk `idx` of this file the dirty bytes `buffer` of another file,
   * frozen so neither writes it in place (copy_file_range of unhashed bytes).
   */
  shareBytes(idx: number, buffer: Buffer, length: number, now: number): void {
    this.#pool.share(buffer);
    this.#drop(idx);
    this.#dirty.set(idx, buffer);
    const end = idx * CHUNK_SIZE + length;
    if (end > this.size) this.size = end;
    this.mtime = now;
  }

  /** Chunk `idx`'s dirty bytes (for shareBytes); undefined when the chunk is clean. */
  dirtyBytesOf(idx: number): Buffer | undefined {
    return this.#dirty.get(idx);
  }

  /** What chunk `idx` holds when it is not dirty: shared or stored (undefined past the stored end). */
  cleanRef(idx: number): ChunkRef | undefined {
    if (this.#dirty.has(idx)) return undefined;
    return this.#shared.get(idx) ?? this.#storedRef(idx);
  }

  /** A truncate to the current size changes no byte (its times are MountFs's: Linux moves them for some). */
  truncate(size: number, now: number): void {
    if (size === this.size) return;
    if (size < this.size) {
      const count = Math.ceil(size / CHUNK_SIZE);
      for (const idx of [...this.#dirty.keys(), ...this.#shared.keys()]) if (idx >= count) this.#drop(idx);
      // The new last chunk is cut inside: make it dirty now with zeros past the cut, so growing
      // the file again later reads zeros rather than the old bytes.
      const tail = size % CHUNK_SIZE;
      if (tail !== 0) {
        const chunk = this.#dirtyChunk(count - 1, 0, 0);
        chunk.fill(0, tail);
      }
      // Stored chunks past the cut stay in the store until the commit; from now on they are holes.
      this.#cutAt = Math.min(this.#cutAt, size);
    }
    this.size = size;
    this.mtime = now;
    this.#changed = true;
  }

  /**
   * Shrinks the buffers of short chunks to their bytes (pooled ones go back
   * to the pool): a closed file that waits for its commit keeps only its
   * bytes (a 3-byte file holds 3 bytes, not 512 KiB or a 4 KiB buffer).
   */
  compact(): void {
    for (const [idx, buffer] of this.#dirty) {
      const live = Math.max(0, Math.min(CHUNK_SIZE, this.size - idx * CHUNK_SIZE));
      if (live >= buffer.byteLength || this.#pool.isFrozen(buffer)) continue; // frozen buffers stay
      this.#dirty.set(idx, Buffer.from(buffer.subarray(0, live)));
      this.#pool.give(buffer);
    }
  }

  /**
   * Stores the dirty chunks (hashing only those) and the shared ones with
   * the new size and mtime in one transaction, and hands the buffers back.
   */
  commit(sha256: (bytes: Uint8Array) => string, now: number): void {
    if (this.detached || !this.isDirty) return;
    const count = Math.ceil(this.size / CHUNK_SIZE);
    // A chunk whose stored length no longer matches (an old last chunk before a grow, a gap
    // after a sparse write) must be rewritten with zeros filling it.
    for (let idx = 0; idx < count; idx++) {
      const expected = Math.min(CHUNK_SIZE, this.size - idx * CHUNK_SIZE);
      const dirty = this.#dirty.get(idx);
      if (dirty !== undefined) {
        if (dirty.byteLength < expected) this.#promote(idx, dirty, expected);
        continue;
      }
      const ref = this.#shared.get(idx) ?? this.#storedRef(idx);
      if (ref?.size !== expected) this.#dirtyChunk(idx, 0, 0);
    }
    const dirty: DirtyChunk[] = [];
    for (const [idx, buffer] of this.#dirty) {
      if (idx >= count) continue;
      const length = Math.min(CHUNK_SIZE, this.size - idx * CHUNK_SIZE);
      // The buffer itself when whole: a frozen one's hash is cached by identity (MountFs's sha256).
      dirty.push({ idx, bytes: length === buffer.byteLength ? buffer : buffer.subarray(0, length) });
    }
    const shared: SharedChunk[] = [];
    for (const [idx, ref] of this.#shared) if (idx < count) shared.push({ idx, ...ref });
    writeInode(
      this.#db,
      this.inode,
      {
        size: this.size,
        mtime: this.mtime,
        mode: this.pendingMode,
        dirty,
        shared,
        sha256,
        path: this.path,
        cutAt: this.#cutAt,
      },
      now,
    );
    this.pendingMode = undefined;
    this.release();
    this.#changed = false;
    this.#cutAt = Number.POSITIVE_INFINITY;
    this.invalidate();
  }

  /** Drops every dirty buffer and shared chunk (after a commit, or when the file is gone). */
  release(): void {
    for (const buffer of this.#dirty.values()) this.#pool.give(buffer);
    this.#dirty.clear();
    this.#shared.clear();
  }

  #drop(idx: number): void {
    const buffer = this.#dirty.get(idx);
    if (buffer !== undefined) {
      this.#dirty.delete(idx);
      this.#pool.give(buffer);
    }
    this.#shared.delete(idx);
  }

  #storedChunks(): ChunkRef[] {
    this.#chunks ??= inodeChunks(this.#db, this.inode);
    return this.#chunks;
  }

  /** The stored chunk `idx`, unless a truncate since the last commit cut it off. */
  #storedRef(idx: number): ChunkRef | undefined {
    if ((idx + 1) * CHUNK_SIZE > this.#cutAt) return undefined;
    return this.#storedChunks()[idx];
  }

  #cleanChunk(idx: number): Uint8Array {
    const ref = this.#shared.get(idx) ?? this.#storedRef(idx);
    if (ref === undefined) return EMPTY;
    if (this.#cached?.hash === ref.hash) return this.#cached.bytes;
    const bytes = readChunk(this.#db, ref, this.path);
    this.#cached = { hash: ref.hash, bytes };
    return bytes;
  }

  /**
   * A short or frozen dirty buffer becomes a writable one of its own with
   * room for `need` bytes, zeros past its bytes: a plain buffer twice as
   * large (a small file grows without a 512 KiB buffer), or a pooled chunk
   * buffer once past SMALL_LIMIT.
   */
  #promote(idx: number, short: Buffer, need = CHUNK_SIZE): Buffer {
    const buffer = this.#writable(idx, Math.max(need, Math.min(CHUNK_SIZE, 2 * short.byteLength)));
    short.copy(buffer, 0, 0, short.byteLength);
    if (buffer.byteLength === CHUNK_SIZE) buffer.fill(0, short.byteLength);
    this.#pool.give(short);
    this.#dirty.set(idx, buffer);
    return buffer;
  }

  /**
   * A buffer for chunk `idx`'s first `need` bytes: zeroed and sized to the
   * next power of two up to SMALL_LIMIT, else a pooled chunk buffer
   * (contents unspecified: the caller zeroes what it must). Zeroing a 512 KiB
   * pooled buffer for every small file tar makes was a tenth of the daemon's
   * CPU. Only a file's first chunk grows that way: a file with a second one
   * is large, and doubling each of its chunks from 4 KiB (a shell tool's
   * writes) cost a MiB of zeroing and copying per chunk, and enough
   * short-lived buffers to keep the garbage collector busy.
   */
  #writable(idx: number, need: number): Buffer {
    if (idx > 0 || need > SMALL_LIMIT) return this.#pool.take();
    let size = MIN_BUFFER;
    while (size < need) size *= 2;
    return Buffer.alloc(size);
  }

  /**
   * The writable buffer of chunk `idx`, made on first write. Its current bytes
   * are loaded only when the write leaves part of the chunk showing;
   * everything past them is zero (a dirty buffer holds zeros past the
   * file's end, so a file grown later reads zeros there).
   */
  #dirtyChunk(idx: number, offset: number, length: number): Buffer {
    const existing = this.#dirty.get(idx);
    if (existing !== undefined) {
      // A frozen shared one is not writable in place; a short one only within its length.
      if (!this.#pool.isFrozen(existing) && offset + length <= existing.byteLength) return existing;
      return this.#promote(idx, existing, offset + length);
    }
    const start = idx * CHUNK_SIZE;
    const live = Math.max(0, Math.min(CHUNK_SIZE, this.size - start));
    const buffer = this.#writable(idx, Math.max(live, offset + length));
    const covered = offset === 0 && length >= live;
    let filled = 0;
    if (live > 0 && !covered) {
      const current = this.#cleanChunk(idx);
      filled = Math.min(live, current.byteLength);
      buffer.set(current.subarray(0, filled), 0);
    }
    if (buffer.byteLength === CHUNK_SIZE) {
      // A pooled buffer's old bytes: zero what the write will not cover (it fills its own range).
      if (offset > filled) buffer.fill(0, filled, offset);
      const after = Math.max(filled, offset + length);
      if (after < CHUNK_SIZE) buffer.fill(0, after);
    }
    this.#shared.delete(idx);
    this.#dirty.set(idx, buffer);
    return buffer;
  }
}

/** Chunks up to this many bytes live in plain zeroed buffers that grow by doubling; larger ones in pooled 512 KiB buffers. */
const SMALL_LIMIT = CHUNK_SIZE / 2;
const MIN_BUFFER = 4096;

const EMPTY = new Uint8Array(0);

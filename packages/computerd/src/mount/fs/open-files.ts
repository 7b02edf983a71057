/**
 * MountFs's files room: create, open, read, write, copy_file_range,
 * truncate, fsync and release over the per-inode write buffers
 * (open-file.ts), and the commits a fetchChanges, a push or an idle daemon
 * asks for.
 */
import { CHUNK_SIZE, isFsError, isNameTooLong } from "@cloudflare/dofs";
import { childAttr, createFileInode, type InodeAttr, inodeAttr } from "@cloudflare/dofs/inode";
import { EISDIR, ENAMETOOLONG, ENOENT, ErrnoError } from "../errno.js";
import type { Caller } from "../inode-owners.js";
import { msOf } from "../inode-times.js";
import { OpenFile } from "../open-file.js";
import { SpecialFiles } from "../special-files.js";
import type { Attributes } from "./attributes.js";
import type { InodeFiles } from "./inode-files.js";
import { DIRTY_FLUSH_BYTES, EMPTY, type FuseStat, O_ACCMODE, O_TRUNC, sha256 } from "./shared.js";
import type { MountState } from "./state.js";

export class OpenFiles {
  readonly #state: MountState;
  readonly #attributes: Attributes;
  readonly #inodeFiles: InodeFiles;

  constructor(state: MountState, attributes: Attributes, inodeFiles: InodeFiles) {
    this.#state = state;
    this.#attributes = attributes;
    this.#inodeFiles = inodeFiles;
  }

  /**
   * O_TMPFILE in directory `dir`: an open file with no name, in memory only
   * (an inode number from the special range), until `linkOpen` names it.
   */
  tmpfile(dir: string, mode: number, caller?: Caller): number {
    const parent = this.#state.dirRef(dir);
    if (parent === undefined) throw new ErrnoError(ENOENT, dir);
    const at = this.#state.clock();
    const inode = this.#state.specials.allocate();
    const file = new OpenFile(
      this.#state.db,
      this.#state.pool,
      inode,
      0,
      msOf(at),
      this.#state.vfsPath(dir === "/" ? "/" : `${dir}/`),
    );
    file.mode = mode & 0o7777;
    file.detach();
    this.#state.times.born(inode, at);
    this.#state.own(inode, parent, caller);
    file.refs++;
    const fd = this.#state.nextHandle++;
    this.#state.handles.set(fd, { file });
    return fd;
  }

  /**
   * linkat(fd, "", dir, name, AT_EMPTY_PATH) of an O_TMPFILE file: it takes
   * a store inode at `path`, and its buffered bytes, times and owner go
   * with it. Answers the new inode. A file unlinked while open cannot be
   * linked again (the kernel refuses that before it asks).
   */
  linkOpen(fd: number, path: string): number {
    const file = this.#inodeFiles.fileOf(fd);
    if (!file.detached || !SpecialFiles.isSpecialIno(file.inode)) throw new ErrnoError(ENOENT, path);
    const vfsPath = this.#state.vfsPath(path);
    if (isNameTooLong(vfsPath, this.#state.maxPathBytes)) throw new ErrnoError(ENAMETOOLONG, path);
    this.#state.refuseSpecial(path);
    const parent = this.#state.parentDir(path);
    const child =
      parent === undefined ? undefined : { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
    const at = this.#state.clock();
    const attr = createFileInode(this.#state.db, vfsPath, file.mode, sha256, file.mtime, child);
    const before = file.inode;
    file.named(attr.inode, vfsPath);
    this.#state.files.set(attr.inode, file);
    if (this.#state.orphans.get(before) === file) {
      // Reached by inode (no-open): it parks as any file written by inode, and is no orphan now.
      this.#state.orphans.delete(before);
      if (file.refs === 0) this.#state.park(file, false);
    }
    this.#state.times.move(before, attr.inode);
    this.#state.times.changed(attr.inode, at);
    this.#state.owners.move(before, attr.inode);
    this.#state.entriesChanged(parent?.inode, at);
    return attr.inode;
  }

  /** A new empty file in one synchronous transaction; a path taken meanwhile goes the long way (writeFile follows links). */
  create(path: string, mode: number, caller?: Caller): number | Promise<number> {
    const made = this.createFile(path, mode, caller);
    return made instanceof Promise ? made.then(({ fd }) => fd) : made.fd;
  }

  /** create answering the new file's attributes too (the kernel driver's CREATE reply), from the row it wrote. */
  createFile(
    path: string,
    mode: number,
    caller?: Caller,
  ): { fd: number; stat: FuseStat } | Promise<{ fd: number; stat: FuseStat }> {
    const vfsPath = this.#state.vfsPath(path);
    if (isNameTooLong(vfsPath, this.#state.maxPathBytes)) throw new ErrnoError(ENAMETOOLONG, path);
    this.#state.refuseSpecial(path);
    try {
      const at = this.#state.clock();
      const parent = this.#state.parentDir(path);
      const child =
        parent === undefined ? undefined : { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
      const attr = createFileInode(this.#state.db, vfsPath, mode & 0o7777, sha256, msOf(at), child);
      this.#state.times.born(attr.inode, at);
      this.#state.own(attr.inode, parent, caller);
      this.#state.entriesChanged(parent?.inode, at);
      const fd = this.#open(attr, vfsPath, 0);
      return { fd, stat: this.#state.stat(attr, this.#state.files.get(attr.inode)) };
    } catch (error) {
      if (!isFsError(error) || error.code !== "EEXIST") throw error;
    }
    return this.#state.fs.writeFile(vfsPath, EMPTY, { mode: mode & 0o7777 }).then(() => {
      const fd = this.open(path, 0);
      return { fd, stat: this.#attributes.fgetattr(fd) };
    });
  }

  open(path: string, flags: number): number {
    const attr = this.#state.attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    return this.#open(attr, this.#state.vfsPath(path), flags);
  }

  #open(attr: InodeAttr, vfsPath: string, flags: number): number {
    const file = this.#state.openFile(attr, vfsPath);
    // A parked file opened again is an open file again: its commit waits for the last close.
    this.#state.unpark(file);
    file.refs++;
    const fd = this.#state.nextHandle++;
    this.#state.handles.set(fd, { file });
    if ((flags & O_TRUNC) !== 0 && (flags & O_ACCMODE) !== 0) {
      if (file.shared && file.size !== 0) this.#state.sharedChanges++;
      // Linux moves the mtime and ctime of an empty file opened with O_TRUNC too.
      if (file.size !== 0) this.#state.modify(file, (now) => file.truncate(0, now));
      else this.#attributes.utimensFile(file, { mtime: "now" });
    }
    return fd;
  }

  read(fd: number, buffer: Buffer, length: number, position: number): number {
    const file = this.#inodeFiles.fileOf(fd);
    this.#state.times.accessed(file.inode, file.mtime, this.#state.clock());
    return file.read(buffer, length, position);
  }

  write(fd: number, buffer: Buffer, length: number, position: number): number {
    const file = this.#inodeFiles.fileOf(fd);
    if (fd < 0) this.#inodeFiles.writingByInode(file);
    if (file.shared) this.#state.sharedChanges++;
    const written = this.#state.modify(file, (now) => file.write(buffer, length, position, now));
    if (file.dirtyBytes > DIRTY_FLUSH_BYTES) this.#state.commit(file);
    if (fd < 0) this.#inodeFiles.parkWritten(file);
    return written;
  }

  /**
   * copy_file_range: whole stored chunks are shared by hash (nothing is read,
   * hashed or stored again), the rest is copied through a scratch chunk.
   * Answers the bytes copied (short at the source's end).
   */
  copyRange(srcFd: number, srcPos: number, dstFd: number, dstPos: number, length: number): number {
    const src = this.#inodeFiles.fileOf(srcFd);
    const dst = this.#inodeFiles.fileOf(dstFd);
    const end = Math.min(src.size, srcPos + length);
    if (end <= srcPos) return 0;
    if (dstFd < 0) this.#inodeFiles.writingByInode(dst);
    if (dst.shared) this.#state.sharedChanges++;
    const at = this.#state.clock();
    const before = dst.mtime;
    const now = msOf(at);
    // Taken only when some piece must be copied byte by byte.
    let scratch: Buffer | undefined;
    try {
      let at = srcPos;
      let to = dstPos;
      while (at < end) {
        const idx = Math.floor(at / CHUNK_SIZE);
        const offset = at - idx * CHUNK_SIZE;
        const take = Math.min(CHUNK_SIZE - offset, end - at);
        // Shared only when the chunk is exactly what is copied and nothing of the destination's chunk shows past it.
        const whole =
          offset === 0 &&
          to % CHUNK_SIZE === 0 &&
          (take === CHUNK_SIZE || at + take === src.size) &&
          (take === CHUNK_SIZE || to + take >= dst.size);
        const ref = whole ? src.cleanRef(idx) : undefined;
        const bytes = whole && ref === undefined ? src.dirtyBytesOf(idx) : undefined;
        if (ref !== undefined && ref.size === take) {
          dst.share(to / CHUNK_SIZE, ref, now);
        } else if (bytes !== undefined && bytes.byteLength >= take) {
          dst.shareBytes(to / CHUNK_SIZE, bytes, take, now);
        } else {
          scratch ??= this.#state.pool.take();
          src.read(scratch, take, at);
          dst.write(scratch, take, to, now);
        }
        at += take;
        to += take;
      }
    } finally {
      if (scratch !== undefined) this.#state.pool.give(scratch);
    }
    this.#state.times.modified(dst.inode, at, before, dst.mtime);
    if (dst.dirtyBytes > DIRTY_FLUSH_BYTES) this.#state.commit(dst);
    if (dstFd < 0) this.#inodeFiles.parkWritten(dst);
    return end - srcPos;
  }

  truncate(path: string, size: number): void {
    const attr = this.#state.attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    const file = this.#state.openFile(attr, this.#state.vfsPath(path));
    if (file.shared && size !== file.size) this.#state.sharedChanges++;
    if (size !== file.size) this.#state.modify(file, (now) => file.truncate(size, now));
    // The kernel sends an O_TRUNC open of an empty file as this truncate to 0 (no time with it), and Linux moves the
    // mtime and ctime there; any other truncate(2) to the size a file has changes nothing (POSIX's rule, ext4's).
    else if (size === 0) this.#attributes.utimensFile(file, { mtime: "now" });
    if (file.refs === 0) this.#state.park(file);
  }

  ftruncate(fd: number, size: number): void {
    const file = this.#inodeFiles.fileOf(fd);
    if (fd < 0) this.#inodeFiles.writingByInode(file);
    if (file.shared && size !== file.size) this.#state.sharedChanges++;
    if (size !== file.size) this.#state.modify(file, (now) => file.truncate(size, now));
    // Linux's ftruncate moves the mtime and ctime even to the size a file has; FUSE sends no time with it.
    else this.#attributes.utimensFile(file, { mtime: "now" });
    if (fd < 0) this.#inodeFiles.parkWritten(file);
  }

  fsync(fd: number): void {
    const file = this.#inodeFiles.fileOf(fd);
    this.#state.commit(file);
    if (fd < 0 && file.refs === 0 && !file.detached) this.#inodeFiles.keepByInode(file);
    this.#state.persist?.();
  }

  /**
   * Makes what was committed outlive the daemon (`persist`, given for a
   * store that survives the process; store/state.ts): after an fsync, a
   * close and an fsyncdir, so a crash of computerd loses none of them.
   */
  persistWith(persist: () => void): void {
    this.#state.persist = persist;
  }

  get persists(): boolean {
    return this.#state.persist !== undefined;
  }

  /**
   * close(2) of a file the daemon serves by inode (the kernel driver's
   * FLUSH with no-open, which sends no RELEASE): with a store that outlives
   * the daemon, what the file holds commits and reaches the store file.
   * Only a dirty file is hashed; a clean close costs one empty commit.
   */
  closed(fd: number): void {
    if (this.#state.persist === undefined) return;
    const file = fd < 0 ? this.#state.files.get(-fd) : this.#state.handles.get(fd)?.file;
    if (file?.isDirty && !file.detached) {
      this.#state.commit(file);
      if (fd < 0 && file.refs === 0) this.#inodeFiles.keepByInode(file);
    }
    this.#state.persist();
  }

  /** fsync(2) of a directory: its entries are in the store's open batch, which commits. */
  fsyncdir(): void {
    this.#state.persist?.();
  }

  release(fd: number): void {
    const handle = this.#state.handle(fd);
    this.#state.handles.delete(fd);
    handle.file.refs--;
    if (handle.file.refs === 0) {
      // A store that outlives the daemon: the last close commits rather than parks (see persistWith).
      if (this.#state.persist !== undefined && handle.file.isDirty && !handle.file.detached)
        this.#state.commit(handle.file);
      this.#state.park(handle.file);
      this.#state.persist?.();
    }
    // The last handle of a file unlinked while open: its inode is gone for good (unless the kernel keeps it, forgetInode).
    if (
      handle.file.detached &&
      !this.#state.handlesReach(handle.file.inode) &&
      !this.#state.orphans.has(handle.file.inode)
    ) {
      this.#state.times.forget(handle.file.inode);
      this.#state.owners.forget(handle.file.inode);
    }
  }

  /** The handle's file has other names, whose kernel inodes may hold its old pages (see sharedChanges). */
  isShared(fd: number): boolean {
    return this.#inodeFiles.fileOf(fd).shared;
  }

  get hasOpenFiles(): boolean {
    return this.#state.handles.size > 0;
  }

  /**
   * Commits every open or parked file in one transaction (before a
   * fetchChanges, before a push applies, at unmount); parked files are done
   * with. A file that fails stays dirty; the first error is thrown after the rest.
   */
  commitAll(): void {
    let failure: unknown;
    const all = (): void => {
      for (const file of [...this.#state.files.values()]) {
        try {
          this.#state.commit(file);
          if (file.refs === 0) this.#state.forget(file);
        } catch (error) {
          failure ??= error;
        }
      }
    };
    // A batching store (checkedWrites) has every write join one SQLite transaction already: one
    // around them all would only make each file's commit a savepoint.
    if (this.#state.db.checkedWrites !== undefined) all();
    else this.#state.db.transaction(all);
    this.#state.keptByInode.clear();
    this.#state.lastWritten = undefined;
    if (failure !== undefined) throw failure;
  }

  /**
   * Adds every stored blob an open, parked, hidden or detached file may
   * still need (see OpenFile.heldChunks): chunk gc keeps them.
   */
  heldChunks(into: Set<string>): void {
    for (const file of this.#state.files.values()) file.heldChunks(into);
    // A file unlinked while open is reachable only through its handles, or its inode while the kernel holds it.
    for (const handle of this.#state.handles.values()) handle.file.heldChunks(into);
    for (const file of this.#state.orphans.values()) file.heldChunks(into);
  }

  /**
   * The daemon is idle (memory/reclaimer.ts): parked and open files commit,
   * as before a fetchChanges, so their buffers can go, and the pool lets its
   * idle buffers go. Nothing a handle still reads is dropped.
   */
  releaseIdle(): void {
    try {
      this.commitAll();
    } finally {
      this.#state.pool.trim();
    }
  }

  /** Bytes held by closed files waiting for their commit. */
  get parkedBytes(): number {
    return this.#state.parkedBytes;
  }

  /**
   * Before a sync apply: everything commits, and each open file keeps its
   * stored chunk list, which the push may delete along with the file.
   */
  prepareApply(): void {
    this.commitAll();
    for (const file of this.#state.files.values()) if (file.refs > 0) file.keepStoredChunks();
  }

  /**
   * After a sync apply: cached chunk lists and directory inodes may name
   * replaced content. A file still open takes the store's size and mtime (a
   * handle kept across the push reads the new bytes); one the push deleted
   * lives on in memory, like a file unlinked while open. Answers the open
   * files whose size or mtime changed, under the name they were opened by.
   */
  invalidate(): { path: string; size: number; mtime: number }[] {
    this.#state.forgetDirs();
    this.#state.subdirs.clear();
    this.#state.entryVersion++;
    this.#state.applies++;
    // A FIFO or socket whose directory the push removed, or whose name it took, goes.
    if (!this.#state.specials.empty) {
      this.#state.specials.prune(
        (parent, name) =>
          inodeAttr(this.#state.db, parent)?.type === "dir" && childAttr(this.#state.db, parent, name) === undefined,
      );
    }
    const changed: { path: string; size: number; mtime: number }[] = [];
    for (const file of [...this.#state.files.values()]) {
      const attr = inodeAttr(this.#state.db, file.inode);
      if (attr === undefined || attr.type !== "file") {
        this.#state.unpark(file);
        file.detached = true;
        this.#state.files.delete(file.inode);
        // The kernel holds it (keepForApply loaded its chunks): a process may read it still.
        if (this.#state.byInode?.holds(file.inode)) this.#state.orphans.set(file.inode, file);
        else if (file.refs === 0) file.release();
      } else if (file.isDirty) {
        // Written between the commit and now: its own bytes win, as any later write would.
        file.invalidate();
      } else {
        if (attr.size !== file.size || attr.mtime !== file.mtime) {
          changed.push({ path: file.path, size: attr.size, mtime: attr.mtime });
        }
        file.reload(attr.size, attr.mtime);
        // Clean and without a handle (read by inode, or kept for the apply): loaded again when asked for.
        if (file.refs === 0) this.#state.forget(file);
      }
    }
    this.#state.keptByInode.clear();
    return changed;
  }
}

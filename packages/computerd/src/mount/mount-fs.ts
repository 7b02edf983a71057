/**
 * The filesystem a FUSE driver serves: FUSE's path-based operations over
 * the daemon's dofs store, with file handles and the per-inode write
 * buffers (open-file.ts). Driver-neutral: a fuse-native or a libfuse 3
 * binding adapts its callbacks to these synchronous methods, which throw
 * dofs errors (mapped to errno by errno.ts).
 *
 * FUSE paths are relative to the mount (`/a/b`); dofs paths carry the mount
 * point as a prefix (`/workspace/a/b`), as the Durable Object's do.
 *
 * MountFs is the front door only: each operation lives in one room under
 * fs/ (attributes, names, open files, files by inode), and the rooms share
 * one MountState (the handles, the per-inode files, parking and the
 * directory cache). A room's comments say why each operation does what it does.
 */
import type { Database } from "@cloudflare/dofs";
import { Attributes } from "./fs/attributes.js";
import { InodeFiles } from "./fs/inode-files.js";
import { Names } from "./fs/names.js";
import { OpenFiles } from "./fs/open-files.js";
import type { FuseStat, InodeAccess, MountFsOptions, TimesRequest } from "./fs/shared.js";
import { MountState } from "./fs/state.js";
import type { Caller } from "./inode-owners.js";

export type { FuseStat, InodeAccess, MountFsOptions, TimeRequest, TimesRequest } from "./fs/shared.js";

export class MountFs {
  readonly #state: MountState;
  readonly #attributes: Attributes;
  readonly #names: Names;
  readonly #openFiles: OpenFiles;
  readonly #inodeFiles: InodeFiles;

  constructor(db: Database, mountPoint: string, options: MountFsOptions = {}) {
    this.#state = new MountState(db, mountPoint, options);
    this.#inodeFiles = new InodeFiles(this.#state);
    this.#attributes = new Attributes(this.#state, this.#inodeFiles);
    this.#openFiles = new OpenFiles(this.#state, this.#attributes, this.#inodeFiles);
    this.#names = new Names(this.#state, this.#attributes, this.#openFiles);
  }

  /**
   * Counts changes to a file with more than one name. libfuse's high-level
   * API gives each name its own kernel inode, so the kernel's cached size
   * and pages of the other names go stale: the driver drops every cached
   * name (the epoch) before it answers such a change.
   */
  get sharedChanges(): number {
    return this.#state.sharedChanges;
  }

  set sharedChanges(count: number) {
    this.#state.sharedChanges = count;
  }

  /**
   * Calls `listener` with each inode whose mtime, ctime or atime a request
   * moves (reads do not): the kernel driver drops what the kernel keeps of
   * such a file, so that relatime's next read reaches us (kernel/relatime.ts).
   */
  watchTimes(listener: (inode: number, contents: boolean) => void): void {
    this.#state.times.onChange = listener;
  }

  /** The dofs path of a FUSE path. */
  vfsPath(path: string): string {
    return this.#state.vfsPath(path);
  }

  /** The FUSE path of a dofs path; undefined outside the mount. */
  fusePath(vfsPath: string): string | undefined {
    return this.#state.fusePath(vfsPath);
  }

  // Attributes (fs/attributes.ts)

  getattr(path: string): FuseStat {
    return this.#attributes.getattr(path);
  }

  statIfExists(path: string): FuseStat | undefined {
    return this.#attributes.statIfExists(path);
  }

  inodeStat(inode: number): FuseStat | undefined {
    return this.#attributes.inodeStat(inode);
  }

  fgetattr(fd: number): FuseStat {
    return this.#attributes.fgetattr(fd);
  }

  chmod(path: string, mode: number): Promise<void> {
    return this.#attributes.chmod(path, mode);
  }

  setMode(path: string, mode: number): FuseStat | undefined | Promise<void> {
    return this.#attributes.setMode(path, mode);
  }

  fchmod(fd: number, mode: number): void {
    this.#attributes.fchmod(fd, mode);
  }

  chown(path: string, uid: number, gid: number, caller?: Caller): void {
    this.#attributes.chown(path, uid, gid, caller);
  }

  chownInode(inode: number, uid: number, gid: number, caller?: Caller): void {
    this.#attributes.chownInode(inode, uid, gid, caller);
  }

  utimens(path: string, request: TimesRequest): void {
    this.#attributes.utimens(path, request);
  }

  setTimes(path: string, request: TimesRequest): FuseStat | undefined {
    return this.#attributes.setTimes(path, request);
  }

  futimens(fd: number, request: TimesRequest): void {
    this.#attributes.futimens(fd, request);
  }

  // Names (fs/names.ts)

  readdir(path: string): Promise<string[]> {
    return this.#names.readdir(path);
  }

  readdirPlus(path: string): { names: string[]; stats: FuseStat[] } {
    return this.#names.readdirPlus(path);
  }

  mkdir(path: string, mode: number, caller?: Caller): Promise<void> {
    return this.#names.mkdir(path, mode, caller);
  }

  makeDir(path: string, mode: number, caller?: Caller): FuseStat | Promise<FuseStat> {
    return this.#names.makeDir(path, mode, caller);
  }

  rmdir(path: string): Promise<void> {
    return this.#names.rmdir(path);
  }

  unlink(path: string): Promise<void> {
    return this.#names.unlink(path);
  }

  rename(from: string, to: string): Promise<void> {
    return this.#names.rename(from, to);
  }

  link(existing: string, path: string): Promise<void> {
    return this.#names.link(existing, path);
  }

  symlink(target: string, path: string, caller?: Caller): Promise<void> {
    return this.#names.symlink(target, path, caller);
  }

  mknod(path: string, mode: number, caller?: Caller, rdev = 0): FuseStat | Promise<FuseStat> {
    return this.#names.mknod(path, mode, caller, rdev);
  }

  readlink(path: string): Promise<string> {
    return this.#names.readlink(path);
  }

  // Files (fs/open-files.ts)

  tmpfile(dir: string, mode: number, caller?: Caller): number {
    return this.#openFiles.tmpfile(dir, mode, caller);
  }

  linkOpen(fd: number, path: string): number {
    return this.#openFiles.linkOpen(fd, path);
  }

  create(path: string, mode: number, caller?: Caller): number | Promise<number> {
    return this.#openFiles.create(path, mode, caller);
  }

  createFile(
    path: string,
    mode: number,
    caller?: Caller,
  ): { fd: number; stat: FuseStat } | Promise<{ fd: number; stat: FuseStat }> {
    return this.#openFiles.createFile(path, mode, caller);
  }

  open(path: string, flags: number): number {
    return this.#openFiles.open(path, flags);
  }

  read(fd: number, buffer: Buffer, length: number, position: number): number {
    return this.#openFiles.read(fd, buffer, length, position);
  }

  write(fd: number, buffer: Buffer, length: number, position: number): number {
    return this.#openFiles.write(fd, buffer, length, position);
  }

  copyRange(srcFd: number, srcPos: number, dstFd: number, dstPos: number, length: number): number {
    return this.#openFiles.copyRange(srcFd, srcPos, dstFd, dstPos, length);
  }

  truncate(path: string, size: number): void {
    this.#openFiles.truncate(path, size);
  }

  ftruncate(fd: number, size: number): void {
    this.#openFiles.ftruncate(fd, size);
  }

  fsync(fd: number): void {
    this.#openFiles.fsync(fd);
  }

  release(fd: number): void {
    this.#openFiles.release(fd);
  }

  /** A store that outlives the daemon: fsync, close and fsyncdir make commits durable (fs/open-files.ts). */
  persistWith(persist: () => void): void {
    this.#openFiles.persistWith(persist);
  }

  get persists(): boolean {
    return this.#openFiles.persists;
  }

  closed(fd: number): void {
    this.#openFiles.closed(fd);
  }

  fsyncdir(): void {
    this.#openFiles.fsyncdir();
  }

  isShared(fd: number): boolean {
    return this.#openFiles.isShared(fd);
  }

  get hasOpenFiles(): boolean {
    return this.#openFiles.hasOpenFiles;
  }

  commitAll(): void {
    this.#openFiles.commitAll();
  }

  heldChunks(into: Set<string>): void {
    this.#openFiles.heldChunks(into);
  }

  releaseIdle(): void {
    this.#openFiles.releaseIdle();
  }

  get parkedBytes(): number {
    return this.#openFiles.parkedBytes;
  }

  prepareApply(): void {
    this.#openFiles.prepareApply();
  }

  invalidate(): { path: string; size: number; mtime: number }[] {
    return this.#openFiles.invalidate();
  }

  // Files by inode, no-open (fs/inode-files.ts)

  serveByInode(access: InodeAccess): void {
    this.#inodeFiles.serveByInode(access);
  }

  releaseToInode(fd: number): void {
    this.#inodeFiles.releaseToInode(fd);
  }

  forgetInode(inode: number): void {
    this.#inodeFiles.forgetInode(inode);
  }

  isOrphan(inode: number): boolean {
    return this.#inodeFiles.isOrphan(inode);
  }

  keepForApply(inode: number): void {
    this.#inodeFiles.keepForApply(inode);
  }

  /**
   * A file reference for `inode` where a handle is expected (read, write,
   * fgetattr, fchmod, futimens, ftruncate, fsync, copyRange): handles are
   * positive, an inode reference is the inode negated.
   */
  static inodeRef(inode: number): number {
    return -inode;
  }

  /** Moves with every change of a directory's entries, here or by a push (a listing read before is stale). */
  get entryVersion(): number {
    return this.#state.entryVersion;
  }

  /** Moves with every change of an inode's attributes (each moves its ctime) and every push. */
  get attrVersion(): number {
    return this.#state.times.version + this.#state.applies;
  }

  statfs(): Record<string, number> {
    // Uint32 fields: a large, stable answer (the store lives in memory; df is informational).
    return {
      bsize: 4096,
      frsize: 4096,
      blocks: 0x3fffffff,
      bfree: 0x3fffffff,
      bavail: 0x3fffffff,
      files: 0x3fffffff,
      ffree: 0x3fffffff,
      favail: 0x3fffffff,
      fsid: 0,
      flag: 0,
      namemax: 255,
    };
  }

  stats(): Record<string, number> {
    return {
      mount_open_files: this.#state.files.size,
      mount_handles: this.#state.handles.size,
      mount_parked_files: this.#state.parked.size,
      mount_parked_bytes: this.#state.parkedBytes,
      mount_orphan_files: this.#state.orphans.size,
      mount_dirty_buffers: this.#state.pool.inUse,
      mount_idle_buffers: this.#state.pool.idle,
    };
  }
}

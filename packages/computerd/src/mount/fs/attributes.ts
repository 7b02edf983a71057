/**
 * MountFs's attributes room: stat by path, by handle and by inode, and the
 * setattr family (chmod, chown, utimens), each also by handle so a file
 * unlinked while open still takes it.
 */
import { inodeAttr, setInodeMode, setInodeMtime } from "@cloudflare/dofs/inode";
import { ENAMETOOLONG, ENOENT, EPERM, ErrnoError } from "../errno.js";
import { type Caller, mayChown, UNCHANGED } from "../inode-owners.js";
import { msOf, type Nanos } from "../inode-times.js";
import type { OpenFile } from "../open-file.js";
import { SpecialFiles } from "../special-files.js";
import type { InodeFiles } from "./inode-files.js";
import { detachedAttr, type FuseStat, isLongName, S_IFMT, type TimeRequest, type TimesRequest } from "./shared.js";
import type { MountState } from "./state.js";

export class Attributes {
  readonly #state: MountState;
  readonly #inodeFiles: InodeFiles;

  constructor(state: MountState, inodeFiles: InodeFiles) {
    this.#state = state;
    this.#inodeFiles = inodeFiles;
  }

  getattr(path: string): FuseStat {
    const hidden = this.#state.hidden.get(path);
    if (hidden !== undefined) {
      return this.#state.stat(inodeAttr(this.#state.db, hidden.inode) ?? detachedAttr(hidden), hidden);
    }
    const attr = this.#state.lookup(path);
    if (attr === undefined) {
      const special = this.#state.specialAt(path);
      if (special !== undefined) return this.#state.specialStat(special);
      throw new ErrnoError(isLongName(path) ? ENAMETOOLONG : ENOENT, path);
    }
    return this.#state.stat(attr, this.#state.files.get(attr.inode));
  }

  /** getattr that answers undefined for a missing name instead of throwing (a FUSE lookup miss is common: every create). */
  statIfExists(path: string): FuseStat | undefined {
    const hidden = this.#state.hidden.get(path);
    if (hidden !== undefined) return this.getattr(path);
    const attr = this.#state.lookup(path);
    if (attr === undefined) {
      if (isLongName(path)) throw new ErrnoError(ENAMETOOLONG, path);
      const special = this.#state.specialAt(path);
      return special === undefined ? undefined : this.#state.specialStat(special);
    }
    return this.#state.stat(attr, this.#state.files.get(attr.inode));
  }

  /** By inode (the kernel driver's nodes are inodes): no path walk; undefined once the inode is gone. */
  inodeStat(inode: number): FuseStat | undefined {
    if (SpecialFiles.isSpecialIno(inode)) {
      const special = this.#state.specials.byIno(inode);
      // An O_TMPFILE file (no-open keeps it as an orphan) has a number from the same range.
      return special === undefined ? this.#inodeFiles.orphanStat(inode) : this.#state.specialStat(special);
    }
    const attr = inodeAttr(this.#state.db, inode);
    if (attr === undefined) return this.#inodeFiles.orphanStat(inode);
    return this.#state.stat(attr, this.#state.files.get(inode));
  }

  /** fstat: by handle, so a file unlinked while open still answers. */
  fgetattr(fd: number): FuseStat {
    const file = this.#inodeFiles.fileOf(fd);
    return this.#state.stat(inodeAttr(this.#state.db, file.inode) ?? detachedAttr(file), file);
  }

  /**
   * Sets the permission bits by inode (no path walk), and nothing when they
   * are already set (tar's chmod after a create with that mode). The mtime
   * stays: chmod changes only the ctime, which is not stored.
   */
  async chmod(path: string, mode: number): Promise<void> {
    await this.setMode(path, mode);
  }

  /**
   * chmod answering the attributes it leaves (the kernel driver's SETATTR
   * reply, from the row it read: no second query), synchronously unless the
   * path names a symlink; undefined when they take a query of their own.
   */
  setMode(path: string, mode: number): FuseStat | undefined | Promise<void> {
    // libfuse 2's name for a file unlinked while open: the file lives in memory only.
    const hidden = this.#state.hidden.get(path);
    if (hidden !== undefined) {
      this.#chmodFile(hidden, mode);
      return undefined;
    }
    const special = this.#state.specialAt(path);
    if (special !== undefined) {
      special.mode = (special.mode & S_IFMT) | (mode & 0o7777);
      this.#state.times.changed(special.ino, this.#state.clock());
      if (special.names.length > 1) this.#state.sharedChanges++;
      return this.#state.specialStat(special);
    }
    const attr = this.#state.attr(path);
    // The kernel resolves links before a chmod; a symlink named here takes the store's path walk (which follows it).
    if (attr.type === "symlink") return this.#state.fs.chmod(this.#state.vfsPath(path), mode & 0o7777);
    // A chmod to the same mode is still a change of the inode (ctime), as on Linux; only the store is spared.
    this.#state.times.changed(attr.inode, this.#state.clock());
    if (attr.nlink > 1) this.#state.sharedChanges++;
    const open = this.#state.files.get(attr.inode);
    if (((open?.pendingMode ?? attr.mode) & 0o7777) === (mode & 0o7777)) return this.#state.stat(attr, open);
    // A file with uncommitted bytes (tar's chmod right after its write) takes the mode in its
    // buffer: its commit stores both in one transaction.
    if (open?.isDirty && !open.detached) open.pendingMode = mode & 0o7777;
    else setInodeMode(this.#state.db, attr.inode, mode & 0o7777, this.#state.vfsPath(path));
    const dir = this.#state.dirs.get(path);
    if (dir !== undefined) dir.mode = mode & 0o7777;
    return this.#state.stat({ ...attr, mode: mode & 0o7777 }, open);
  }

  /** fchmod: by handle, so a file unlinked while open (kept in memory) takes it too. */
  fchmod(fd: number, mode: number): void {
    this.#chmodFile(this.#inodeFiles.fileOf(fd), mode);
  }

  #chmodFile(file: OpenFile, mode: number): void {
    this.#state.times.changed(file.inode, this.#state.clock());
    if (file.shared) this.#state.sharedChanges++;
    file.mode = mode & 0o7777;
    if (!file.detached) setInodeMode(this.#state.db, file.inode, file.mode, file.path);
  }

  /**
   * chown/lchown (FUSE never follows a link for it): the owner and group,
   * each UNCHANGED to leave it. With a caller, chown(2)'s rules for a
   * non-root one apply (inode-owners.ts). Setuid and setgid bits are the
   * kernel's to clear: it sends the new mode with the same setattr.
   */
  chown(path: string, uid: number, gid: number, caller?: Caller): void {
    const special = this.#state.specialAt(path);
    if (special !== undefined) {
      this.#chownInode(special.ino, uid, gid, caller, path);
      if (special.names.length > 1) this.#state.sharedChanges++;
      return;
    }
    const attr = this.#state.attr(path);
    this.#chownInode(attr.inode, uid, gid, caller, path);
    if (attr.nlink > 1) this.#state.sharedChanges++;
  }

  /**
   * chown by inode (the kernel driver's nodes are inodes): no path walk, so
   * tar's chown of every file it makes costs no query. The owner table
   * holds any inode number, a FIFO's or an open-unlinked file's too.
   */
  chownInode(inode: number, uid: number, gid: number, caller?: Caller): void {
    this.#chownInode(inode, uid, gid, caller, `inode ${inode}`);
  }

  #chownInode(inode: number, uid: number, gid: number, caller: Caller | undefined, path: string): void {
    const owner = this.#state.owners.get(inode);
    if (caller !== undefined && !mayChown(owner, uid, gid, caller, this.#state.groupsOf))
      throw new ErrnoError(EPERM, path);
    this.#state.owners.set(inode, uid === UNCHANGED ? owner.uid : uid, gid === UNCHANGED ? owner.gid : gid);
    this.#state.times.changed(inode, this.#state.clock());
  }

  /**
   * Sets atime and mtime (utimensat), and the ctime to now. The store keeps
   * the mtime in ms (and syncs it); the rest is in state.times. fuse-native
   * passes the access time twice, so the caller resolves the real mtime
   * first (see utimens.ts).
   */
  utimens(path: string, request: TimesRequest): void {
    this.setTimes(path, request);
  }

  /**
   * utimens answering the attributes it leaves (the kernel driver's SETATTR
   * reply, from the row it read); undefined when they take a query of their
   * own. A file with uncommitted bytes (tar's, right after its write) takes
   * the mtime in its buffer: its commit stores it with the bytes, one
   * transaction instead of two, and everything that reads the store
   * (a fetchChanges, a push) commits first.
   */
  setTimes(path: string, request: TimesRequest): FuseStat | undefined {
    const hidden = this.#state.hidden.get(path);
    if (hidden !== undefined) {
      this.utimensFile(hidden, request);
      return undefined;
    }
    const special = this.#state.specialAt(path);
    if (special !== undefined) {
      const at = this.#state.clock();
      this.#state.times.set(special.ino, special.bornMs, this.#resolveTimes(request, at), at);
      return this.#state.specialStat(special);
    }
    const attr = this.#state.attr(path);
    const open = this.#state.files.get(attr.inode);
    const at = this.#state.clock();
    const times = this.#resolveTimes(request, at);
    let stored = open?.mtime ?? attr.mtime;
    if (times.mtime !== undefined) {
      const mtime = msOf(times.mtime);
      if (open?.isDirty && !open.detached) {
        if (open.mtime !== mtime && attr.nlink > 1) this.#state.sharedChanges++;
        open.mtime = mtime;
      } else if (attr.mtime !== mtime || (open !== undefined && open.mtime !== mtime)) {
        // The time it already has (a second utimens, or tar's after a chmod): no write.
        if (attr.nlink > 1) this.#state.sharedChanges++;
        setInodeMtime(this.#state.db, attr.inode, mtime, this.#state.vfsPath(path));
        if (open !== undefined) open.mtime = mtime;
      }
      stored = mtime;
    }
    this.#state.times.set(attr.inode, stored, times, at);
    return this.#state.stat({ ...attr, mtime: stored }, open);
  }

  /** futimens: by handle; a file unlinked while open keeps the time in memory only. */
  futimens(fd: number, request: TimesRequest): void {
    this.utimensFile(this.#inodeFiles.fileOf(fd), request);
  }

  utimensFile(file: OpenFile, request: TimesRequest): void {
    const at = this.#state.clock();
    const times = this.#resolveTimes(request, at);
    if (times.mtime !== undefined) {
      if (file.shared) this.#state.sharedChanges++;
      file.mtime = msOf(times.mtime);
      if (!file.detached) setInodeMtime(this.#state.db, file.inode, file.mtime, file.path);
    }
    this.#state.times.set(file.inode, file.mtime, times, at);
  }

  #resolveTimes(request: TimesRequest, at: Nanos): { atime?: Nanos; mtime?: Nanos } {
    const resolve = (time: TimeRequest): Nanos | undefined => (time === "now" ? at : time);
    return { atime: resolve(request.atime), mtime: resolve(request.mtime) };
  }
}

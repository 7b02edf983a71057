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
 * Over 800 lines: the handles, the per-inode files (by handle and by inode),
 * parking and the directory cache are one state every op shares; each
 * section below (Attributes, Names, Files, Files by inode) is one concern.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import {
  CHUNK_SIZE,
  type Database,
  isFsError,
  isNameTooLong,
  MAX_NAME_BYTES,
  WorkspaceFilesystem,
} from "@cloudflare/dofs";
import {
  type ChildName,
  childAttr,
  childAttrs,
  createFileInode,
  type InodeAttr,
  inodeAttr,
  lookupInode,
  mkdirInode,
  pathOfInode,
  rmdirChild,
  setInodeMode,
  setInodeMtime,
  unlinkChild,
} from "@cloudflare/dofs/inode";
import {
  EBADF,
  EEXIST,
  EINVAL,
  EISDIR,
  ENAMETOOLONG,
  ENOENT,
  ENOTDIR,
  ENOTEMPTY,
  EPERM,
  ErrnoError,
  ESTALE,
} from "./errno.js";
import { type Caller, InodeOwners, mayChown, type Owner, procGroups, UNCHANGED } from "./inode-owners.js";
import { InodeTimes, msOf, type Nanos, nanosOf, wallClock } from "./inode-times.js";
import { OpenFile } from "./open-file.js";
import { BufferPool } from "./pool.js";
import { SpecialFiles, type SpecialNode } from "./special-files.js";

export interface FuseStat {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  nlink: number;
  ino: number;
  blksize: number;
  blocks: number;
  /** Times in whole ms (what fuse-native takes), with the nanoseconds within their second beside them. */
  atime: number;
  mtime: number;
  ctime: number;
  atimeNsec: number;
  mtimeNsec: number;
  ctimeNsec: number;
  /** A device node's number (special-files.ts); absent for everything else. */
  rdev?: number;
}

/** A time a utimens asks for: a time, "now", or undefined to leave it alone (UTIME_OMIT). */
export type TimeRequest = Nanos | "now" | undefined;

export interface TimesRequest {
  atime?: TimeRequest;
  mtime?: TimeRequest;
}

/** libfuse (2, without hard_remove) renames a file unlinked while open to this prefix, then unlinks it on release. */
const HIDDEN_PREFIX = ".fuse_hidden";
const TYPE_BITS = { file: constants.S_IFREG, dir: constants.S_IFDIR, symlink: constants.S_IFLNK };
const O_ACCMODE = 3;
const O_TRUNC = constants.O_TRUNC;
const S_IFMT = 0o170000;
const S_ISGID = 0o2000;

/** A directory the path cache knows: its inode, and its mode (a setgid one hands its group to new entries). */
interface DirRef {
  inode: number;
  mode: number;
}

interface Handle {
  file: OpenFile;
}

/**
 * What a driver whose opens reach MountFs without a handle (the kernel
 * driver with no-open: reads and writes come with handle 0) tells it about
 * the inodes the kernel holds (`serveByInode`).
 */
export interface InodeAccess {
  /** The FUSE path of an inode the kernel holds; undefined when it has no name left. */
  pathOf(inode: number): string | undefined;
  /** The kernel holds the inode's node, so a process may have it open. */
  holds(inode: number): boolean;
}

export interface MountFsOptions {
  now?: () => number;
  /** Idle chunk buffers kept for reuse (512 KiB each; 160 = 80 MiB covers a 64 MiB file rewritten in place). */
  poolKeep?: number;
  /** A caller's supplementary groups (a chgrp by a non-root owner); /proc by default. */
  groupsOf?: (pid: number) => readonly number[];
}

export class MountFs {
  readonly #db: Database;
  readonly #fs: WorkspaceFilesystem;
  readonly #root: string;
  /** The store's limit on a path: the mount point's own bytes plus BELOW_MOUNT_MAX_PATH_BYTES. */
  readonly #maxPathBytes: number;
  readonly #now: () => number;
  readonly #clock: () => Nanos;
  /** ctime, atime, the mtime's nanoseconds and directory mtimes (inode-times.ts). */
  readonly #times = new InodeTimes();
  readonly #pool: BufferPool;
  readonly #groupsOf: (pid: number) => readonly number[];
  readonly #files = new Map<number, OpenFile>();
  readonly #handles = new Map<number, Handle>();
  /** Set for a store that outlives the daemon (persistWith). */
  #persist: (() => void) | undefined;
  /** `.fuse_hidden*` paths (relative to the mount) → the inode they stand for. */
  readonly #hidden = new Map<string, OpenFile>();
  /** FUSE directory path → inode and mode, for #lookup; cleared by anything that moves or removes a name. */
  readonly #dirs = new Map<string, DirRef>();
  /**
   * Some #dirs path may run through a symlink (a walk found a directory
   * under a parent that is not a directory): removing one directory or
   * symlink then forgets every cached path, not just its own.
   */
  #dirsThroughLinks = false;
  /** Who owns each inode (not stored; inode-owners.ts). */
  readonly #owners: InodeOwners;
  /** FIFOs and sockets, in memory only (special-files.ts). */
  readonly #specials = new SpecialFiles((ino) => {
    this.#times.forget(ino);
    this.#owners.forget(ino);
  });
  /** Directory inode → how many subdirectories it has (its link count is 2 more); dropped on any change. */
  readonly #subdirs = new Map<number, number>();
  /** Closed files waiting for their commit, oldest first, with the bytes each was parked with. */
  readonly #parked = new Map<OpenFile, number>();
  #parkedBytes = 0;
  #nextHandle = 1;
  /** Files reached by inode (no-open); see "Files by inode" below. */
  #byInode: InodeAccess | undefined;
  /**
   * Files whose last name went while the kernel held their node (any
   * process may have them open without our knowing), by inode, kept with
   * their stored chunk list until the kernel forgets the node (forgetInode).
   */
  readonly #orphans = new Map<number, OpenFile>();
  /** Clean files loaded for a request by inode, most recent last (a large file's reads reuse one); BY_INODE_KEPT at most. */
  readonly #keptByInode = new Map<number, OpenFile>();
  /** The last file written by inode: its short last chunk is compacted once writes move to another file. */
  #lastWritten: OpenFile | undefined;
  #entryVersion = 0;
  #applies = 0;
  /**
   * Counts changes to a file with more than one name. libfuse's high-level
   * API gives each name its own kernel inode, so the kernel's cached size
   * and pages of the other names go stale: the driver drops every cached
   * name (the epoch) before it answers such a change.
   */
  sharedChanges = 0;
  constructor(db: Database, mountPoint: string, options: MountFsOptions = {}) {
    this.#db = db;
    this.#owners = new InodeOwners({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });
    this.#groupsOf = options.groupsOf ?? procGroups;
    const now = options.now;
    this.#clock = now !== undefined ? () => nanosOf(now()) : wallClock();
    this.#now = now ?? (() => msOf(this.#clock()));
    this.#root = mountPoint === "/" ? "" : mountPoint;
    this.#maxPathBytes = Buffer.byteLength(this.#root) + BELOW_MOUNT_MAX_PATH_BYTES;
    this.#fs = new WorkspaceFilesystem(db, { now: this.#now, maxPathBytes: this.#maxPathBytes });
    this.#pool = new BufferPool(CHUNK_SIZE, options.poolKeep ?? 160);
  }

  /**
   * Calls `listener` with each inode whose mtime, ctime or atime a request
   * moves (reads do not): the kernel driver drops what the kernel keeps of
   * such a file, so that relatime's next read reaches us (kernel/relatime.ts).
   */
  watchTimes(listener: (inode: number, contents: boolean) => void): void {
    this.#times.onChange = listener;
  }

  /** The dofs path of a FUSE path. */
  vfsPath(path: string): string {
    return path === "/" ? this.#root || "/" : this.#root + path;
  }

  /** The FUSE path of a dofs path; undefined outside the mount. */
  fusePath(vfsPath: string): string | undefined {
    if (this.#root === "") return vfsPath;
    if (vfsPath === this.#root) return "/";
    return vfsPath.startsWith(`${this.#root}/`) ? vfsPath.slice(this.#root.length) : undefined;
  }

  // Attributes

  getattr(path: string): FuseStat {
    const hidden = this.#hidden.get(path);
    if (hidden !== undefined) {
      return this.#stat(inodeAttr(this.#db, hidden.inode) ?? detachedAttr(hidden), hidden);
    }
    const attr = this.#lookup(path);
    if (attr === undefined) {
      const special = this.#specialAt(path);
      if (special !== undefined) return this.#specialStat(special);
      throw new ErrnoError(isLongName(path) ? ENAMETOOLONG : ENOENT, path);
    }
    return this.#stat(attr, this.#files.get(attr.inode));
  }

  /** getattr that answers undefined for a missing name instead of throwing (a FUSE lookup miss is common: every create). */
  statIfExists(path: string): FuseStat | undefined {
    const hidden = this.#hidden.get(path);
    if (hidden !== undefined) return this.getattr(path);
    const attr = this.#lookup(path);
    if (attr === undefined) {
      if (isLongName(path)) throw new ErrnoError(ENAMETOOLONG, path);
      const special = this.#specialAt(path);
      return special === undefined ? undefined : this.#specialStat(special);
    }
    return this.#stat(attr, this.#files.get(attr.inode));
  }

  /** By inode (the kernel driver's nodes are inodes): no path walk; undefined once the inode is gone. */
  inodeStat(inode: number): FuseStat | undefined {
    if (SpecialFiles.isSpecialIno(inode)) {
      const special = this.#specials.byIno(inode);
      // An O_TMPFILE file (no-open keeps it as an orphan) has a number from the same range.
      return special === undefined ? this.#orphanStat(inode) : this.#specialStat(special);
    }
    const attr = inodeAttr(this.#db, inode);
    if (attr === undefined) return this.#orphanStat(inode);
    return this.#stat(attr, this.#files.get(inode));
  }

  /** fstat: by handle, so a file unlinked while open still answers. */
  fgetattr(fd: number): FuseStat {
    const file = this.#fileOf(fd);
    return this.#stat(inodeAttr(this.#db, file.inode) ?? detachedAttr(file), file);
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
    const hidden = this.#hidden.get(path);
    if (hidden !== undefined) {
      this.#chmodFile(hidden, mode);
      return undefined;
    }
    const special = this.#specialAt(path);
    if (special !== undefined) {
      special.mode = (special.mode & S_IFMT) | (mode & 0o7777);
      this.#times.changed(special.ino, this.#clock());
      if (special.names.length > 1) this.sharedChanges++;
      return this.#specialStat(special);
    }
    const attr = this.#attr(path);
    // The kernel resolves links before a chmod; a symlink named here takes the store's path walk (which follows it).
    if (attr.type === "symlink") return this.#fs.chmod(this.vfsPath(path), mode & 0o7777);
    // A chmod to the same mode is still a change of the inode (ctime), as on Linux; only the store is spared.
    this.#times.changed(attr.inode, this.#clock());
    if (attr.nlink > 1) this.sharedChanges++;
    const open = this.#files.get(attr.inode);
    if (((open?.pendingMode ?? attr.mode) & 0o7777) === (mode & 0o7777)) return this.#stat(attr, open);
    // A file with uncommitted bytes (tar's chmod right after its write) takes the mode in its
    // buffer: its commit stores both in one transaction.
    if (open?.isDirty && !open.detached) open.pendingMode = mode & 0o7777;
    else setInodeMode(this.#db, attr.inode, mode & 0o7777, this.vfsPath(path));
    const dir = this.#dirs.get(path);
    if (dir !== undefined) dir.mode = mode & 0o7777;
    return this.#stat({ ...attr, mode: mode & 0o7777 }, open);
  }

  /** fchmod: by handle, so a file unlinked while open (kept in memory) takes it too. */
  fchmod(fd: number, mode: number): void {
    this.#chmodFile(this.#fileOf(fd), mode);
  }

  #chmodFile(file: OpenFile, mode: number): void {
    this.#times.changed(file.inode, this.#clock());
    if (file.shared) this.sharedChanges++;
    file.mode = mode & 0o7777;
    if (!file.detached) setInodeMode(this.#db, file.inode, file.mode, file.path);
  }

  /**
   * chown/lchown (FUSE never follows a link for it): the owner and group,
   * each UNCHANGED to leave it. With a caller, chown(2)'s rules for a
   * non-root one apply (inode-owners.ts). Setuid and setgid bits are the
   * kernel's to clear: it sends the new mode with the same setattr.
   */
  chown(path: string, uid: number, gid: number, caller?: Caller): void {
    const special = this.#specialAt(path);
    if (special !== undefined) {
      this.#chownInode(special.ino, uid, gid, caller, path);
      if (special.names.length > 1) this.sharedChanges++;
      return;
    }
    const attr = this.#attr(path);
    this.#chownInode(attr.inode, uid, gid, caller, path);
    if (attr.nlink > 1) this.sharedChanges++;
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
    const owner = this.#owners.get(inode);
    if (caller !== undefined && !mayChown(owner, uid, gid, caller, this.#groupsOf)) throw new ErrnoError(EPERM, path);
    this.#owners.set(inode, uid === UNCHANGED ? owner.uid : uid, gid === UNCHANGED ? owner.gid : gid);
    this.#times.changed(inode, this.#clock());
  }

  /**
   * Sets atime and mtime (utimensat), and the ctime to now. The store keeps
   * the mtime in ms (and syncs it); the rest is in #times. fuse-native
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
    const hidden = this.#hidden.get(path);
    if (hidden !== undefined) {
      this.#utimensFile(hidden, request);
      return undefined;
    }
    const special = this.#specialAt(path);
    if (special !== undefined) {
      const at = this.#clock();
      this.#times.set(special.ino, special.bornMs, this.#resolveTimes(request, at), at);
      return this.#specialStat(special);
    }
    const attr = this.#attr(path);
    const open = this.#files.get(attr.inode);
    const at = this.#clock();
    const times = this.#resolveTimes(request, at);
    let stored = open?.mtime ?? attr.mtime;
    if (times.mtime !== undefined) {
      const mtime = msOf(times.mtime);
      if (open?.isDirty && !open.detached) {
        if (open.mtime !== mtime && attr.nlink > 1) this.sharedChanges++;
        open.mtime = mtime;
      } else if (attr.mtime !== mtime || (open !== undefined && open.mtime !== mtime)) {
        // The time it already has (a second utimens, or tar's after a chmod): no write.
        if (attr.nlink > 1) this.sharedChanges++;
        setInodeMtime(this.#db, attr.inode, mtime, this.vfsPath(path));
        if (open !== undefined) open.mtime = mtime;
      }
      stored = mtime;
    }
    this.#times.set(attr.inode, stored, times, at);
    return this.#stat({ ...attr, mtime: stored }, open);
  }

  /** futimens: by handle; a file unlinked while open keeps the time in memory only. */
  futimens(fd: number, request: TimesRequest): void {
    this.#utimensFile(this.#fileOf(fd), request);
  }

  #utimensFile(file: OpenFile, request: TimesRequest): void {
    const at = this.#clock();
    const times = this.#resolveTimes(request, at);
    if (times.mtime !== undefined) {
      if (file.shared) this.sharedChanges++;
      file.mtime = msOf(times.mtime);
      if (!file.detached) setInodeMtime(this.#db, file.inode, file.mtime, file.path);
    }
    this.#times.set(file.inode, file.mtime, times, at);
  }

  #resolveTimes(request: TimesRequest, at: Nanos): { atime?: Nanos; mtime?: Nanos } {
    const resolve = (time: TimeRequest): Nanos | undefined => (time === "now" ? at : time);
    return { atime: resolve(request.atime), mtime: resolve(request.mtime) };
  }

  // Names

  async readdir(path: string): Promise<string[]> {
    const attr = this.#attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    this.#times.accessed(attr.inode, attr.mtime, this.#clock());
    const entries = await this.#fs.readdir(this.vfsPath(path));
    const specials = this.#specials.list(attr.inode).map(([name]) => name);
    return [".", "..", ...entries.map((entry) => entry.name).filter(fitsDirent), ...specials];
  }

  /**
   * readdir with every entry's attributes (`.` and `..` included), so a
   * readdirplus reply leaves the kernel entries it can use without a lookup
   * each (find, ls -l, git status). Open and parked files show their
   * buffered size and mtime.
   */
  readdirPlus(path: string): { names: string[]; stats: FuseStat[] } {
    const attr = this.#attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    // A listing is a read of the directory (relatime); before the attributes below, which it may move.
    this.#times.accessed(attr.inode, attr.mtime, this.#clock());
    // `.` and `..` carry a number and a type only (no driver hands the kernel their attributes): no queries.
    const self = dotStat(attr.inode);
    const parentDir = path === "/" ? undefined : this.#parentDir(path);
    const parent = parentDir === undefined ? self : dotStat(parentDir.inode);
    const names = [".", ".."];
    const stats = [self, parent];
    for (const child of childAttrs(this.#db, attr.inode)) {
      if (!fitsDirent(child.name)) continue;
      names.push(child.name);
      stats.push(this.#stat(child.attr, this.#files.get(child.attr.inode)));
    }
    for (const [name, node] of this.#specials.list(attr.inode)) {
      names.push(name);
      stats.push(this.#specialStat(node));
    }
    return { names, stats };
  }

  /** A new directory is the caller's; in a setgid directory it takes that group and the setgid bit. */
  async mkdir(path: string, mode: number, caller?: Caller): Promise<void> {
    await this.makeDir(path, mode, caller);
  }

  /**
   * mkdir answering the new directory's attributes (the kernel driver's
   * MKDIR reply). In a known directory it is one transaction by the
   * parent's inode (mkdirInode) and the reply comes from the row it wrote;
   * otherwise the store's mkdir walks the path.
   */
  makeDir(path: string, mode: number, caller?: Caller): FuseStat | Promise<FuseStat> {
    const parent = this.#parentDir(path);
    this.#refuseSpecial(path);
    const setgid = parent !== undefined && (parent.mode & S_ISGID) !== 0 ? S_ISGID : 0;
    const vfsPath = this.vfsPath(path);
    if (parent === undefined || isNameTooLong(vfsPath, this.#maxPathBytes)) {
      return this.#fs.mkdir(vfsPath, { mode: (mode & 0o7777) | setgid }).then(() => {
        this.#own(() => this.#lookup(path)?.inode, parent, caller);
        this.#entriesChanged(parent?.inode);
        return this.getattr(path);
      });
    }
    const at = this.#clock();
    const child = { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
    const attr = mkdirInode(this.#db, vfsPath, (mode & 0o7777) | setgid, msOf(at), child);
    // Counted as they change: a tree made top-down (tar -x) never needs a count query to list.
    this.#subdirsChanged(parent.inode, 1);
    if (this.#subdirs.size < DIR_CACHE_LIMIT) this.#subdirs.set(attr.inode, 0);
    this.#times.born(attr.inode, at);
    this.#own(attr.inode, parent, caller);
    this.#entriesChanged(parent.inode, at);
    return this.#stat(attr, undefined);
  }

  async rmdir(path: string): Promise<void> {
    const attr = this.#attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    // FIFOs and sockets are entries too, though the store does not hold them.
    if (this.#specials.hasEntries(attr.inode)) throw new ErrnoError(ENOTEMPTY, path);
    const at = this.#childName(path);
    const parent = at?.parent ?? this.#parentInode(path);
    if (at === undefined) {
      this.#forgetDirs();
      await this.#fs.rm(this.vfsPath(path));
    } else {
      // Empty, so the only cached path it can be under is its own (and aliases through a symlink, see #dirsThroughLinks).
      rmdirChild(this.#db, at, this.vfsPath(path), this.#now(), attr.inode);
      if (this.#dirsThroughLinks) this.#forgetDirs();
      else this.#dirs.delete(path);
    }
    this.#times.forget(attr.inode);
    this.#owners.forget(attr.inode);
    this.#subdirs.delete(attr.inode);
    if (parent !== undefined) this.#subdirsChanged(parent, -1);
    this.#entriesChanged(parent);
  }

  async unlink(path: string): Promise<void> {
    if (this.#hidden.delete(path)) return;
    if (this.#unlinkSpecial(path)) return;
    const attr = this.#attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    // A cached directory path may run through the symlink (only if some walk went through one).
    if (attr.type === "symlink" && this.#dirsThroughLinks) this.#forgetDirs();
    // Read before the detach below takes the file out of #files: does a handle still reach it?
    const open = this.#files.get(attr.inode);
    // libfuse 3 with hard_remove unlinks an open file directly (libfuse 2 renames it to .fuse_hidden first).
    this.#detachIfLastName(attr);
    if (attr.nlink > 1) this.sharedChanges++;
    const at = this.#childName(path);
    const parent = at?.parent ?? this.#parentInode(path);
    if (at === undefined) await this.#fs.rm(this.vfsPath(path));
    // attr was read just now (#attr above, nothing awaited since): dofs does not read the name again.
    else unlinkChild(this.#db, at, this.vfsPath(path), this.#now(), attr);
    this.#nameGone(attr, open !== undefined && open.refs > 0);
    this.#entriesChanged(parent);
  }

  async rename(from: string, to: string): Promise<void> {
    const name = to.slice(to.lastIndexOf("/") + 1);
    if (name.startsWith(HIDDEN_PREFIX)) return this.#hide(from, to);
    if (!this.#specials.empty) {
      const special = this.#specialAt(from);
      if (special !== undefined) return this.#renameSpecial(special, from, to);
      const over = this.#specialAt(to);
      if (over !== undefined) {
        if (this.#attr(from).type === "dir") throw new ErrnoError(ENOTDIR, to);
        this.#unlinkSpecial(to);
      }
    }
    const attr = this.#attr(from);
    const fromParent = this.#parentInode(from);
    const toParent = this.#parentInode(to);
    const replaced = lookupInode(this.#db, this.vfsPath(to));
    if (replaced?.type === "dir" && this.#specials.hasEntries(replaced.inode)) throw new ErrnoError(ENOTEMPTY, to);
    // Only a directory moving or going (or a symlink a cached path may run through) moves cached directory
    // paths; git's and npm's renames of files keep them.
    const moves = (node: InodeAttr | undefined): boolean =>
      node?.type === "dir" || (node?.type === "symlink" && this.#dirsThroughLinks);
    if (moves(attr) || moves(replaced)) {
      this.#forgetDirs();
      if (fromParent !== undefined) this.#subdirs.delete(fromParent);
      if (toParent !== undefined) this.#subdirs.delete(toParent);
    }
    if (replaced !== undefined && replaced.inode !== attr.inode) {
      this.#detachIfLastName(replaced);
      if (replaced.nlink > 1) this.sharedChanges++;
    }
    await this.#fs.rename(this.vfsPath(from), this.vfsPath(to));
    const open = this.#files.get(attr.inode);
    if (open !== undefined) open.path = this.vfsPath(to);
    // rename(2) onto another name of the same file changes nothing.
    if (replaced?.inode === attr.inode) return;
    if (replaced !== undefined) this.#nameGone(replaced);
    // Its other names show the new ctime too (see sharedChanges).
    if (attr.nlink > 1) this.sharedChanges++;
    const at = this.#clock();
    this.#times.changed(attr.inode, at);
    this.#entriesChanged(fromParent, at);
    if (toParent !== fromParent) this.#entriesChanged(toParent, at);
  }

  async link(existing: string, path: string): Promise<void> {
    const special = this.#specialAt(existing);
    if (special !== undefined) return this.#linkSpecial(special, path);
    this.#refuseSpecial(path);
    const source = this.#lookup(existing);
    if (source?.type === "symlink") return this.#copySymlink(source, path);
    await this.#fs.link(this.vfsPath(existing), this.vfsPath(path));
    const open = source === undefined ? undefined : this.#files.get(source.inode);
    if (open !== undefined) open.shared = true;
    this.sharedChanges++;
    const at = this.#clock();
    if (source !== undefined) this.#times.changed(source.inode, at);
    this.#entriesChanged(this.#parentInode(path), at);
  }

  /**
   * A hard link of a symlink (`cp -al`, `ln` of a link: link(2) does not
   * follow it): dofs links only files, as the workspace API does, so the new
   * name is a copy, a symlink of its own with the same target and owner.
   * Its link count stays 1 and it has an inode of its own.
   */
  async #copySymlink(source: InodeAttr, path: string): Promise<void> {
    const parent = this.#parentDir(path);
    await this.#fs.symlink(source.linkTarget ?? "", this.vfsPath(path));
    // The source's owner as it is: no setgid directory's group (a link is the same inode, not a new one).
    this.#own(() => this.#lookup(path)?.inode, undefined, this.#owners.get(source.inode));
    this.#entriesChanged(parent?.inode);
  }

  async symlink(target: string, path: string, caller?: Caller): Promise<void> {
    const parent = this.#parentDir(path);
    this.#refuseSpecial(path);
    await this.#fs.symlink(target, this.vfsPath(path));
    this.#own(() => this.#lookup(path)?.inode, parent, caller);
    this.#entriesChanged(parent?.inode);
  }

  /**
   * mknod(2): a regular file is an empty file in the store; a FIFO, a
   * socket (bind(2) of an AF_UNIX socket makes one) or a device node lives
   * in memory only (special-files.ts). The kernel has checked CAP_MKNOD for
   * a device before it asks. Answers the new node's attributes.
   */
  mknod(path: string, mode: number, caller?: Caller, rdev = 0): FuseStat | Promise<FuseStat> {
    const type = mode & S_IFMT;
    if (type === 0 || type === constants.S_IFREG) {
      const made = (fd: number): FuseStat => {
        const stat = this.fgetattr(fd);
        this.release(fd);
        return stat;
      };
      const fd = this.create(path, mode, caller);
      return typeof fd === "number" ? made(fd) : fd.then(made);
    }
    if (!SPECIAL_TYPES.has(type)) throw new ErrnoError(EINVAL, path);
    const device = type === constants.S_IFCHR || type === constants.S_IFBLK;
    if (isLongName(path)) throw new ErrnoError(ENAMETOOLONG, path);
    const parent = this.#parentDir(path);
    if (parent === undefined) throw new ErrnoError(ENOENT, path);
    if (this.#lookup(path) !== undefined || this.#specialAt(path) !== undefined) throw new ErrnoError(EEXIST, path);
    const at = this.#clock();
    const node = this.#specials.add(
      parent.inode,
      path.slice(path.lastIndexOf("/") + 1),
      type | (mode & 0o7777),
      msOf(at),
      device ? rdev : 0,
    );
    this.#times.born(node.ino, at);
    this.#own(node.ino, parent, caller);
    this.#entriesChanged(parent.inode, at);
    return this.#specialStat(node);
  }

  /** Following a symlink reads it (relatime moves its atime, as on tmpfs). */
  async readlink(path: string): Promise<string> {
    const attr = this.#lookup(path);
    if (attr !== undefined) this.#times.accessed(attr.inode, attr.mtime, this.#clock());
    return this.#fs.readlink(this.vfsPath(path));
  }

  // Files

  /**
   * O_TMPFILE in directory `dir`: an open file with no name, in memory only
   * (an inode number from the special range), until `linkOpen` names it.
   */
  tmpfile(dir: string, mode: number, caller?: Caller): number {
    const parent = this.#dirRef(dir);
    if (parent === undefined) throw new ErrnoError(ENOENT, dir);
    const at = this.#clock();
    const inode = this.#specials.allocate();
    const file = new OpenFile(this.#db, this.#pool, inode, 0, msOf(at), this.vfsPath(dir === "/" ? "/" : `${dir}/`));
    file.mode = mode & 0o7777;
    file.detach();
    this.#times.born(inode, at);
    this.#own(inode, parent, caller);
    file.refs++;
    const fd = this.#nextHandle++;
    this.#handles.set(fd, { file });
    return fd;
  }

  /**
   * linkat(fd, "", dir, name, AT_EMPTY_PATH) of an O_TMPFILE file: it takes
   * a store inode at `path`, and its buffered bytes, times and owner go
   * with it. Answers the new inode. A file unlinked while open cannot be
   * linked again (the kernel refuses that before it asks).
   */
  linkOpen(fd: number, path: string): number {
    const file = this.#fileOf(fd);
    if (!file.detached || !SpecialFiles.isSpecialIno(file.inode)) throw new ErrnoError(ENOENT, path);
    const vfsPath = this.vfsPath(path);
    if (isNameTooLong(vfsPath, this.#maxPathBytes)) throw new ErrnoError(ENAMETOOLONG, path);
    this.#refuseSpecial(path);
    const parent = this.#parentDir(path);
    const child =
      parent === undefined ? undefined : { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
    const at = this.#clock();
    const attr = createFileInode(this.#db, vfsPath, file.mode, sha256, file.mtime, child);
    const before = file.inode;
    file.named(attr.inode, vfsPath);
    this.#files.set(attr.inode, file);
    if (this.#orphans.get(before) === file) {
      // Reached by inode (no-open): it parks as any file written by inode, and is no orphan now.
      this.#orphans.delete(before);
      if (file.refs === 0) this.#park(file, false);
    }
    this.#times.move(before, attr.inode);
    this.#times.changed(attr.inode, at);
    this.#owners.move(before, attr.inode);
    this.#entriesChanged(parent?.inode, at);
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
    const vfsPath = this.vfsPath(path);
    if (isNameTooLong(vfsPath, this.#maxPathBytes)) throw new ErrnoError(ENAMETOOLONG, path);
    this.#refuseSpecial(path);
    try {
      const at = this.#clock();
      const parent = this.#parentDir(path);
      const child =
        parent === undefined ? undefined : { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
      const attr = createFileInode(this.#db, vfsPath, mode & 0o7777, sha256, msOf(at), child);
      this.#times.born(attr.inode, at);
      this.#own(attr.inode, parent, caller);
      this.#entriesChanged(parent?.inode, at);
      const fd = this.#open(attr, vfsPath, 0);
      return { fd, stat: this.#stat(attr, this.#files.get(attr.inode)) };
    } catch (error) {
      if (!isFsError(error) || error.code !== "EEXIST") throw error;
    }
    return this.#fs.writeFile(vfsPath, EMPTY, { mode: mode & 0o7777 }).then(() => {
      const fd = this.open(path, 0);
      return { fd, stat: this.fgetattr(fd) };
    });
  }

  open(path: string, flags: number): number {
    const attr = this.#attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    return this.#open(attr, this.vfsPath(path), flags);
  }

  #open(attr: InodeAttr, vfsPath: string, flags: number): number {
    const file = this.#openFile(attr, vfsPath);
    // A parked file opened again is an open file again: its commit waits for the last close.
    this.#unpark(file);
    file.refs++;
    const fd = this.#nextHandle++;
    this.#handles.set(fd, { file });
    if ((flags & O_TRUNC) !== 0 && (flags & O_ACCMODE) !== 0) {
      if (file.shared && file.size !== 0) this.sharedChanges++;
      // Linux moves the mtime and ctime of an empty file opened with O_TRUNC too.
      if (file.size !== 0) this.#modify(file, (now) => file.truncate(0, now));
      else this.#utimensFile(file, { mtime: "now" });
    }
    return fd;
  }

  read(fd: number, buffer: Buffer, length: number, position: number): number {
    const file = this.#fileOf(fd);
    this.#times.accessed(file.inode, file.mtime, this.#clock());
    return file.read(buffer, length, position);
  }

  write(fd: number, buffer: Buffer, length: number, position: number): number {
    const file = this.#fileOf(fd);
    if (fd < 0) this.#writingByInode(file);
    if (file.shared) this.sharedChanges++;
    const written = this.#modify(file, (now) => file.write(buffer, length, position, now));
    if (file.dirtyBytes > DIRTY_FLUSH_BYTES) this.#commit(file);
    if (fd < 0) this.#parkWritten(file);
    return written;
  }

  /**
   * copy_file_range: whole stored chunks are shared by hash (nothing is read,
   * hashed or stored again), the rest is copied through a scratch chunk.
   * Answers the bytes copied (short at the source's end).
   */
  copyRange(srcFd: number, srcPos: number, dstFd: number, dstPos: number, length: number): number {
    const src = this.#fileOf(srcFd);
    const dst = this.#fileOf(dstFd);
    const end = Math.min(src.size, srcPos + length);
    if (end <= srcPos) return 0;
    if (dstFd < 0) this.#writingByInode(dst);
    if (dst.shared) this.sharedChanges++;
    const at = this.#clock();
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
          scratch ??= this.#pool.take();
          src.read(scratch, take, at);
          dst.write(scratch, take, to, now);
        }
        at += take;
        to += take;
      }
    } finally {
      if (scratch !== undefined) this.#pool.give(scratch);
    }
    this.#times.modified(dst.inode, at, before, dst.mtime);
    if (dst.dirtyBytes > DIRTY_FLUSH_BYTES) this.#commit(dst);
    if (dstFd < 0) this.#parkWritten(dst);
    return end - srcPos;
  }

  truncate(path: string, size: number): void {
    const attr = this.#attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    const file = this.#openFile(attr, this.vfsPath(path));
    if (file.shared && size !== file.size) this.sharedChanges++;
    if (size !== file.size) this.#modify(file, (now) => file.truncate(size, now));
    // The kernel sends an O_TRUNC open of an empty file as this truncate to 0 (no time with it), and Linux moves the
    // mtime and ctime there; any other truncate(2) to the size a file has changes nothing (POSIX's rule, ext4's).
    else if (size === 0) this.#utimensFile(file, { mtime: "now" });
    if (file.refs === 0) this.#park(file);
  }

  ftruncate(fd: number, size: number): void {
    const file = this.#fileOf(fd);
    if (fd < 0) this.#writingByInode(file);
    if (file.shared && size !== file.size) this.sharedChanges++;
    if (size !== file.size) this.#modify(file, (now) => file.truncate(size, now));
    // Linux's ftruncate moves the mtime and ctime even to the size a file has; FUSE sends no time with it.
    else this.#utimensFile(file, { mtime: "now" });
    if (fd < 0) this.#parkWritten(file);
  }

  fsync(fd: number): void {
    const file = this.#fileOf(fd);
    this.#commit(file);
    if (fd < 0 && file.refs === 0 && !file.detached) this.#keepByInode(file);
    this.#persist?.();
  }

  /**
   * Makes what was committed outlive the daemon (`persist`, given for a
   * store that survives the process; store/state.ts): after an fsync, a
   * close and an fsyncdir, so a crash of computerd loses none of them.
   */
  persistWith(persist: () => void): void {
    this.#persist = persist;
  }

  get persists(): boolean {
    return this.#persist !== undefined;
  }

  /**
   * close(2) of a file the daemon serves by inode (the kernel driver's
   * FLUSH with no-open, which sends no RELEASE): with a store that outlives
   * the daemon, what the file holds commits and reaches the store file.
   * Only a dirty file is hashed; a clean close costs one empty commit.
   */
  closed(fd: number): void {
    if (this.#persist === undefined) return;
    const file = fd < 0 ? this.#files.get(-fd) : this.#handles.get(fd)?.file;
    if (file?.isDirty && !file.detached) {
      this.#commit(file);
      if (fd < 0 && file.refs === 0) this.#keepByInode(file);
    }
    this.#persist();
  }

  /** fsync(2) of a directory: its entries are in the store's open batch, which commits. */
  fsyncdir(): void {
    this.#persist?.();
  }

  release(fd: number): void {
    const handle = this.#handle(fd);
    this.#handles.delete(fd);
    handle.file.refs--;
    if (handle.file.refs === 0) {
      // A store that outlives the daemon: the last close commits rather than parks (see persistWith).
      if (this.#persist !== undefined && handle.file.isDirty && !handle.file.detached) this.#commit(handle.file);
      this.#park(handle.file);
      this.#persist?.();
    }
    // The last handle of a file unlinked while open: its inode is gone for good (unless the kernel keeps it, forgetInode).
    if (handle.file.detached && !this.#handlesReach(handle.file.inode) && !this.#orphans.has(handle.file.inode)) {
      this.#times.forget(handle.file.inode);
      this.#owners.forget(handle.file.inode);
    }
  }

  /** The handle's file has other names, whose kernel inodes may hold its old pages (see sharedChanges). */
  isShared(fd: number): boolean {
    return this.#fileOf(fd).shared;
  }

  get hasOpenFiles(): boolean {
    return this.#handles.size > 0;
  }

  /**
   * Commits every open or parked file in one transaction (before a
   * fetchChanges, before a push applies, at unmount); parked files are done
   * with. A file that fails stays dirty; the first error is thrown after the rest.
   */
  commitAll(): void {
    let failure: unknown;
    const all = (): void => {
      for (const file of [...this.#files.values()]) {
        try {
          this.#commit(file);
          if (file.refs === 0) this.#forget(file);
        } catch (error) {
          failure ??= error;
        }
      }
    };
    // A batching store (checkedWrites) has every write join one SQLite transaction already: one
    // around them all would only make each file's commit a savepoint.
    if (this.#db.checkedWrites !== undefined) all();
    else this.#db.transaction(all);
    this.#keptByInode.clear();
    this.#lastWritten = undefined;
    if (failure !== undefined) throw failure;
  }

  /**
   * Adds every stored blob an open, parked, hidden or detached file may
   * still need (see OpenFile.heldChunks): chunk gc keeps them.
   */
  heldChunks(into: Set<string>): void {
    for (const file of this.#files.values()) file.heldChunks(into);
    // A file unlinked while open is reachable only through its handles, or its inode while the kernel holds it.
    for (const handle of this.#handles.values()) handle.file.heldChunks(into);
    for (const file of this.#orphans.values()) file.heldChunks(into);
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
      this.#pool.trim();
    }
  }

  /** Bytes held by closed files waiting for their commit. */
  get parkedBytes(): number {
    return this.#parkedBytes;
  }

  /**
   * Before a sync apply: everything commits, and each open file keeps its
   * stored chunk list, which the push may delete along with the file.
   */
  prepareApply(): void {
    this.commitAll();
    for (const file of this.#files.values()) if (file.refs > 0) file.keepStoredChunks();
  }

  /**
   * After a sync apply: cached chunk lists and directory inodes may name
   * replaced content. A file still open takes the store's size and mtime (a
   * handle kept across the push reads the new bytes); one the push deleted
   * lives on in memory, like a file unlinked while open. Answers the open
   * files whose size or mtime changed, under the name they were opened by.
   */
  invalidate(): { path: string; size: number; mtime: number }[] {
    this.#forgetDirs();
    this.#subdirs.clear();
    this.#entryVersion++;
    this.#applies++;
    // A FIFO or socket whose directory the push removed, or whose name it took, goes.
    if (!this.#specials.empty) {
      this.#specials.prune(
        (parent, name) =>
          inodeAttr(this.#db, parent)?.type === "dir" && childAttr(this.#db, parent, name) === undefined,
      );
    }
    const changed: { path: string; size: number; mtime: number }[] = [];
    for (const file of [...this.#files.values()]) {
      const attr = inodeAttr(this.#db, file.inode);
      if (attr === undefined || attr.type !== "file") {
        this.#unpark(file);
        file.detached = true;
        this.#files.delete(file.inode);
        // The kernel holds it (keepForApply loaded its chunks): a process may read it still.
        if (this.#byInode?.holds(file.inode)) this.#orphans.set(file.inode, file);
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
        if (file.refs === 0) this.#forget(file);
      }
    }
    this.#keptByInode.clear();
    return changed;
  }

  // Files by inode (no-open). The kernel driver with no-open sees no OPEN
  // and no RELEASE for a file opened by name: its READ, WRITE, FSYNC and
  // SETATTR come with handle 0. They reach the inode's one OpenFile (the
  // one its handles share) through an inode reference instead of a handle.
  // What lives by inode: a clean file loaded for a read (a few kept, then
  // dropped: it is loaded again when asked for); a file written by inode,
  // parked at once since no close will come (committed as parked files
  // are); and an orphan, a file whose last name went while the kernel
  // held its node, kept until the kernel forgets the node.

  /**
   * Serves files by inode from now on: `access` says which inodes the
   * kernel holds (their files are kept past their last name) and by what
   * name (the path a file loaded by inode commits under).
   */
  serveByInode(access: InodeAccess): void {
    this.#byInode = access;
  }

  /**
   * A file reference for `inode` where a handle is expected (read, write,
   * fgetattr, fchmod, futimens, ftruncate, fsync, copyRange): handles are
   * positive, an inode reference is the inode negated.
   */
  static inodeRef(inode: number): number {
    return -inode;
  }

  /**
   * Closes handle `fd`, keeping its file for requests by inode: with
   * no-open the kernel sends no RELEASE at all, not even for a CREATE or
   * TMPFILE, so those answer handle 0 and their file lives by inode (a
   * dirty one parked, a clean one kept for the first write, an O_TMPFILE
   * file as an orphan until the kernel forgets its node).
   */
  releaseToInode(fd: number): void {
    const { file } = this.#handle(fd);
    this.#handles.delete(fd);
    file.refs--;
    if (file.refs > 0) return;
    if (file.detached) this.#orphans.set(file.inode, file);
    else if (file.isDirty) this.#park(file);
    else this.#keepByInode(file);
  }

  /**
   * The kernel forgot `inode`'s node: an orphan goes now (its last opener
   * closed: an unlinked inode is evicted then), with its times and owner
   * unless a handle still reaches it.
   */
  forgetInode(inode: number): void {
    const orphan = this.#orphans.get(inode);
    if (orphan === undefined) return;
    this.#orphans.delete(inode);
    if (orphan.refs > 0) return;
    orphan.release();
    this.#times.forget(inode);
    this.#owners.forget(inode);
  }

  /** A file is kept for `inode` past its last name, until the kernel forgets the node. */
  isOrphan(inode: number): boolean {
    return this.#orphans.has(inode);
  }

  /**
   * Before a push applies (after prepareApply), for a file the kernel holds
   * at a path the push changes: its stored chunk list is loaded now, while
   * the rows exist, so a process that has it open reads it still if the
   * push deletes it (invalidate keeps it as an orphan).
   */
  keepForApply(inode: number): void {
    if (this.#orphans.has(inode) || SpecialFiles.isSpecialIno(inode)) return;
    let file = this.#files.get(inode);
    if (file === undefined) {
      const attr = inodeAttr(this.#db, inode);
      const path = this.#byInode?.pathOf(inode) ?? this.#storePath(inode);
      if (attr?.type !== "file" || path === undefined) return;
      file = this.#openFile(attr, this.vfsPath(path));
    }
    file.keepStoredChunks();
  }

  /** Moves with every change of a directory's entries, here or by a push (a listing read before is stale). */
  get entryVersion(): number {
    return this.#entryVersion;
  }

  /** Moves with every change of an inode's attributes (each moves its ctime) and every push. */
  get attrVersion(): number {
    return this.#times.version + this.#applies;
  }

  #fileOf(ref: number): OpenFile {
    return ref > 0 ? this.#handle(ref).file : this.#inodeFile(-ref);
  }

  #inodeFile(inode: number): OpenFile {
    const known = this.#files.get(inode) ?? this.#orphans.get(inode);
    if (known !== undefined) {
      if (this.#keptByInode.delete(inode)) this.#keptByInode.set(inode, known);
      return known;
    }
    const attr = SpecialFiles.isSpecialIno(inode) ? undefined : inodeAttr(this.#db, inode);
    if (attr === undefined) {
      // An O_TMPFILE file reopened through /proc/self/fd (no name, no orphan): its handle has it.
      for (const handle of this.#handles.values()) if (handle.file.inode === inode) return handle.file;
      throw new ErrnoError(ESTALE, `inode ${inode}`);
    }
    if (attr.type === "dir") throw new ErrnoError(EISDIR, `inode ${inode}`);
    const path = this.#byInode?.pathOf(inode) ?? this.#storePath(inode);
    if (path === undefined) throw new ErrnoError(ESTALE, `inode ${inode}`);
    const file = this.#openFile(attr, this.vfsPath(path));
    this.#keepByInode(file);
    return file;
  }

  /** A FUSE path of a stored inode, from its names in the store (a hard link the kernel knows only by a name removed since); undefined outside the mount. */
  #storePath(inode: number): string | undefined {
    const path = pathOfInode(this.#db, inode);
    return path === null ? undefined : this.fusePath(path);
  }

  /** A clean file loaded by inode stays for the next request; the least recently used past BY_INODE_KEPT go. */
  #keepByInode(file: OpenFile): void {
    this.#keptByInode.delete(file.inode);
    this.#keptByInode.set(file.inode, file);
    if (this.#keptByInode.size <= BY_INODE_KEPT) return;
    const [inode, oldest] = this.#keptByInode.entries().next().value as [number, OpenFile];
    this.#keptByInode.delete(inode);
    // Written since (parked) or opened by a handle meanwhile: not ours to drop.
    if (oldest.refs === 0 && !oldest.isDirty && this.#files.get(inode) === oldest) this.#forget(oldest);
  }

  /**
   * Before a change by inode: a file written by inode sees no close, so its
   * short last chunk is compacted once writes move to another file (after
   * each write, a 4 KiB append would copy the chunk twice). Done before the
   * change, so the buffer it hands back serves the new file's write (a
   * tar -x reuses one warm buffer instead of alternating two).
   */
  #writingByInode(file: OpenFile): void {
    const previous = this.#lastWritten;
    if (previous === file) return;
    this.#lastWritten = file;
    if (previous !== undefined && previous.refs === 0 && this.#parked.has(previous)) this.#park(previous);
  }

  /** After a change by inode: parked at once (no close will come), its bytes count against PARKED_LIMIT. */
  #parkWritten(file: OpenFile): void {
    // A handle's release parks it; an orphan never commits; parked with these bytes already (a write within
    // its chunks), it stays as it is.
    if (file.refs > 0 || file.detached || this.#parked.get(file) === file.dirtyBytes) return;
    this.#park(file, false);
  }

  /** fstat of a file the kernel holds after its last name went: the orphan knows its size, times and mode. */
  #orphanStat(inode: number): FuseStat | undefined {
    const orphan = this.#orphans.get(inode);
    return orphan === undefined ? undefined : this.#stat(detachedAttr(orphan), orphan);
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
      mount_open_files: this.#files.size,
      mount_handles: this.#handles.size,
      mount_parked_files: this.#parked.size,
      mount_parked_bytes: this.#parkedBytes,
      mount_orphan_files: this.#orphans.size,
      mount_dirty_buffers: this.#pool.inUse,
      mount_idle_buffers: this.#pool.idle,
    };
  }

  #attr(path: string): InodeAttr {
    const hidden = this.#hidden.get(path);
    if (hidden !== undefined) return inodeAttr(this.#db, hidden.inode) ?? detachedAttr(hidden);
    const attr = this.#lookup(path);
    if (attr === undefined) throw new ErrnoError(ENOENT, path);
    return attr;
  }

  /**
   * A path's node: its parent directory's inode from #dirs (one query for the
   * name) instead of a walk from the root, one query per segment. A parent
   * that is missing, a file or a symlink takes the full walk, which also
   * knows ENOTDIR.
   */
  #lookup(path: string): InodeAttr | undefined {
    if (path === "/") return lookupInode(this.#db, this.vfsPath(path));
    const slash = path.lastIndexOf("/");
    const parent = this.#dirInode(slash === 0 ? "/" : path.slice(0, slash));
    if (parent === undefined) {
      const attr = lookupInode(this.#db, this.vfsPath(path));
      // Found by a walk although its parent is no known directory: through a symlink (see #dirsThroughLinks).
      if (attr?.type === "dir") this.#dirsThroughLinks = true;
      return attr;
    }
    return childAttr(this.#db, parent, path.slice(slash + 1));
  }

  /** A path as its directory's inode and its name, when the directory is known (#dirs): verbs that take one skip the walk. */
  #childName(path: string): ChildName | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    const parent = this.#dirInode(slash === 0 ? "/" : path.slice(0, slash));
    return parent === undefined ? undefined : { parent, name: path.slice(slash + 1) };
  }

  #dirInode(path: string): number | undefined {
    return this.#dirRef(path)?.inode;
  }

  #dirRef(path: string): DirRef | undefined {
    const known = this.#dirs.get(path);
    if (known !== undefined) return known;
    const attr = this.#lookup(path);
    if (attr?.type !== "dir") return undefined;
    if (this.#dirs.size >= DIR_CACHE_LIMIT) this.#dirs.clear();
    const ref = { inode: attr.inode, mode: attr.mode };
    this.#dirs.set(path, ref);
    return ref;
  }

  /** The directory a path names an entry of, undefined when it cannot be found. */
  #parentDir(path: string): DirRef | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    return this.#dirRef(slash === 0 ? "/" : path.slice(0, slash));
  }

  /**
   * A new inode's owner (mkdir, create, symlink, mknod): the caller, and in
   * a setgid directory the directory's group. Nothing is held for the
   * default owner, so root's tree costs no lookup here.
   */
  #own(inode: number | (() => number | undefined), parent: DirRef | undefined, caller: Owner | undefined): void {
    const owner: Owner = caller ?? this.#owners.default;
    const gid = parent !== undefined && (parent.mode & S_ISGID) !== 0 ? this.#owners.get(parent.inode).gid : owner.gid;
    if (owner.uid === this.#owners.default.uid && gid === this.#owners.default.gid) return;
    const ino = typeof inode === "number" ? inode : inode();
    if (ino !== undefined) this.#owners.set(ino, owner.uid, gid);
  }

  /** The FIFO or socket a path names (after the store had no such name). */
  #specialAt(path: string): SpecialNode | undefined {
    if (this.#specials.empty) return undefined;
    const at = this.#childName(path);
    return at === undefined ? undefined : this.#specials.get(at.parent, at.name);
  }

  #refuseSpecial(path: string): void {
    if (this.#specialAt(path) !== undefined) throw new ErrnoError(EEXIST, path);
  }

  /** Removes a FIFO's or socket's name; false when the path names none. */
  #unlinkSpecial(path: string): boolean {
    if (this.#specials.empty) return false;
    const at = this.#childName(path);
    const removed = at === undefined ? undefined : this.#specials.remove(at.parent, at.name);
    if (at === undefined || removed === undefined) return false;
    const now = this.#clock();
    // The last name: a process may still hold it open (its fstat shows a link count of 0).
    this.#times.changed(removed.node.ino, now);
    if (!removed.last) this.sharedChanges++;
    this.#entriesChanged(at.parent, now);
    return true;
  }

  async #renameSpecial(node: SpecialNode, from: string, to: string): Promise<void> {
    const source = this.#childName(from);
    const target = this.#childName(to);
    if (source === undefined || target === undefined) throw new ErrnoError(ENOENT, to);
    const over = this.#specials.get(target.parent, target.name);
    if (over === node) return;
    if (over !== undefined) this.#unlinkSpecial(to);
    const replaced = this.#lookup(to);
    if (replaced?.type === "dir") throw new ErrnoError(EISDIR, to);
    if (replaced !== undefined) await this.unlink(to);
    this.#specials.move(source.parent, source.name, target.parent, target.name);
    if (node.names.length > 1) this.sharedChanges++;
    const at = this.#clock();
    this.#times.changed(node.ino, at);
    this.#entriesChanged(source.parent, at);
    if (target.parent !== source.parent) this.#entriesChanged(target.parent, at);
  }

  #linkSpecial(node: SpecialNode, path: string): void {
    const target = this.#childName(path);
    if (target === undefined) throw new ErrnoError(ENOENT, path);
    if (this.#lookup(path) !== undefined || this.#specials.get(target.parent, target.name) !== undefined) {
      throw new ErrnoError(EEXIST, path);
    }
    this.#specials.link(node, target.parent, target.name);
    this.sharedChanges++;
    const at = this.#clock();
    this.#times.changed(node.ino, at);
    this.#entriesChanged(target.parent, at);
  }

  /** A directory gained (1) or lost (-1) a subdirectory: its count follows when known. */
  #subdirsChanged(dir: number, by: number): void {
    const count = this.#subdirs.get(dir);
    if (count !== undefined) this.#subdirs.set(dir, count + by);
  }

  /** 2 plus its subdirectories, as on any Linux filesystem (`find` and `ls` rely on it). */
  #dirLinks(inode: number): number {
    let count = this.#subdirs.get(inode);
    if (count === undefined) {
      const row = this.#db.one<{ n: number }>(
        `SELECT count(*) AS n FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
          WHERE d.parent_inode = ? AND n.type = 'dir'`,
        inode,
      );
      count = Number(row?.n ?? 0);
      if (this.#subdirs.size >= DIR_CACHE_LIMIT) this.#subdirs.clear();
      this.#subdirs.set(inode, count);
    }
    return 2 + count;
  }

  #specialStat(node: SpecialNode): FuseStat {
    const owner = this.#owners.get(node.ino);
    const times = this.#times.get(node.ino, node.bornMs);
    return {
      mode: node.mode,
      uid: owner.uid,
      gid: owner.gid,
      size: 0,
      nlink: node.names.length,
      ino: node.ino,
      blksize: 4096,
      blocks: 0,
      atime: msOf(times.atime),
      mtime: msOf(times.mtime),
      ctime: msOf(times.ctime),
      atimeNsec: nsecOf(times.atime),
      mtimeNsec: nsecOf(times.mtime),
      ctimeNsec: nsecOf(times.ctime),
      ...(node.rdev !== 0 ? { rdev: node.rdev } : {}),
    };
  }

  /** Any change that can move or remove a directory (or a symlink a path walks through) forgets them all. */
  #forgetDirs(): void {
    this.#dirs.clear();
    this.#dirsThroughLinks = false;
  }

  #openFile(attr: InodeAttr, vfsPath: string): OpenFile {
    let file = this.#files.get(attr.inode);
    if (file === undefined) {
      file = new OpenFile(this.#db, this.#pool, attr.inode, attr.size, attr.mtime, vfsPath);
      this.#files.set(attr.inode, file);
    }
    file.shared = attr.nlink > 1;
    return file;
  }

  #handle(fd: number): Handle {
    const handle = this.#handles.get(fd);
    if (handle === undefined) throw new ErrnoError(EBADF, `fd ${fd}`);
    return handle;
  }

  #commit(file: OpenFile): void {
    if (file.detached) return;
    this.#unpark(file);
    file.commit(this.#sha256, this.#now());
  }

  /** A frozen buffer's hash is kept by the pool: bytes shared by copy_file_range are hashed once. */
  readonly #sha256 = (bytes: Uint8Array): string =>
    bytes instanceof Buffer && this.#pool.isFrozen(bytes) ? this.#pool.hashOf(bytes, sha256) : sha256(bytes);

  /**
   * The last handle closed. A clean file is forgotten; a dirty one is parked:
   * its commit (hashing and storing) waits until someone needs the store to
   * be current (a fetchChanges, a push, an fsync), or until parked files
   * hold PARKED_LIMIT bytes. A file written and then deleted, or rewritten,
   * before that is never hashed at all, and close() is never slowed by it.
   */
  #park(file: OpenFile, compact = true): void {
    if (!file.isDirty || file.detached) {
      this.#forget(file);
      return;
    }
    this.#unpark(file);
    if (compact) file.compact();
    this.#parked.set(file, file.dirtyBytes);
    this.#parkedBytes += file.dirtyBytes;
    // Under the limit nothing commits: no copy of the parked list (thousands during a tar -x) per close.
    if (this.#parkedBytes <= PARKED_LIMIT) return;
    for (const oldest of [...this.#parked.keys()]) {
      if (this.#parkedBytes <= PARKED_LIMIT) break;
      this.#commit(oldest);
      if (oldest.refs === 0) this.#forget(oldest);
    }
  }

  #unpark(file: OpenFile): void {
    const bytes = this.#parked.get(file);
    if (bytes === undefined) return;
    this.#parked.delete(file);
    this.#parkedBytes -= bytes;
  }

  #forget(file: OpenFile): void {
    this.#unpark(file);
    // An orphan's buffers are its only copy of its bytes: they go with forgetInode.
    if (this.#orphans.get(file.inode) === file) return;
    file.release();
    if (this.#files.get(file.inode) === file) this.#files.delete(file.inode);
  }

  /**
   * A file unlinked while open: libfuse renames it to `.fuse_hidden…` and
   * unlinks that name on the last release. The hidden name never reaches the
   * store (it would sync to the Durable Object): the real name is removed now,
   * and the open file lives on in memory until its handles close.
   */
  async #hide(from: string, to: string): Promise<void> {
    const attr = this.#attr(from);
    if (attr.type !== "file") throw new ErrnoError(EPERM, from);
    const file = this.#openFile(attr, this.vfsPath(from));
    file.mode = file.pendingMode ?? attr.mode;
    this.#commit(file);
    if (attr.nlink <= 1) file.detach();
    this.#hidden.set(to, file);
    const parent = this.#parentInode(from);
    await this.#fs.rm(this.vfsPath(from));
    this.#entriesChanged(parent);
  }

  /** A file's contents change at one instant: its buffered mtime (ms) and #times (ns) agree. */
  #modify<T>(file: OpenFile, change: (nowMs: number) => T): T {
    const at = this.#clock();
    const before = file.mtime;
    const result = change(msOf(at));
    this.#times.modified(file.inode, at, before, file.mtime);
    return result;
  }

  /** A directory gained, lost or renamed an entry: its mtime and ctime move (not stored, see inode-times.ts). */
  #entriesChanged(dir: number | undefined, at: Nanos = this.#clock()): void {
    this.#entryVersion++;
    if (dir !== undefined) this.#times.modified(dir, at);
  }

  /**
   * One name of `attr` was removed: a file that keeps others changed (its
   * link count), the last name frees its times. `held`: a handle still
   * reaches the file (unlink knows it in O(1); the rest ask #handlesReach).
   */
  #nameGone(attr: InodeAttr, held?: boolean): void {
    if (attr.nlink > 1) this.#times.changed(attr.inode, this.#clock());
    else if (attr.type !== "file" || !(this.#orphans.has(attr.inode) || (held ?? this.#handlesReach(attr.inode)))) {
      this.#times.forget(attr.inode);
      this.#owners.forget(attr.inode);
    } else {
      // Unlinked while open: fstat shows a link count of 0 and a new ctime.
      this.#times.changed(attr.inode, this.#clock());
    }
  }

  #handlesReach(inode: number): boolean {
    for (const handle of this.#handles.values()) if (handle.file.inode === inode) return true;
    return false;
  }

  /** The inode of a path's directory, undefined when it cannot be found. */
  #parentInode(path: string): number | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    return this.#dirInode(slash === 0 ? "/" : path.slice(0, slash));
  }

  /**
   * An open file losing its last name lives on in memory until its handles
   * close: its stored chunks stay readable (blobs go only at gc), its dirty
   * ones stay in the buffer, and nothing of it commits again.
   */
  #detachIfLastName(attr: InodeAttr): void {
    if (attr.type !== "file" || attr.nlink > 1) return;
    // A node the kernel holds may be open without our knowing (no-open): it is kept until the kernel forgets it.
    const held = this.#byInode?.holds(attr.inode) === true;
    let file = this.#files.get(attr.inode);
    if (file === undefined) {
      if (!held) return;
      file = new OpenFile(this.#db, this.#pool, attr.inode, attr.size, attr.mtime, `inode ${attr.inode}`);
    }
    this.#unpark(file);
    // Only its handles (and the kernel's node) reach it now.
    this.#files.delete(attr.inode);
    this.#keptByInode.delete(attr.inode);
    // Nothing can read it again (no handle, no node the kernel holds): its stored chunks need not be kept.
    if (!held && file.refs === 0) {
      file.release();
      return;
    }
    file.mode = file.pendingMode ?? attr.mode;
    // An empty stored file (a parked one tar -x made) has no chunk rows: nothing to load.
    file.detach(attr.size === 0);
    if (held) this.#orphans.set(attr.inode, file);
  }

  #stat(attr: InodeAttr, open: OpenFile | undefined): FuseStat {
    // A symlink's size is its target's length in bytes, as lstat reports it.
    const size = open?.size ?? (attr.type === "symlink" ? Buffer.byteLength(attr.linkTarget ?? "") : attr.size);
    const times = this.#times.get(attr.inode, open?.mtime ?? attr.mtime);
    const owner = this.#owners.get(attr.inode);
    return {
      mode: TYPE_BITS[attr.type] | ((open?.pendingMode ?? attr.mode) & 0o7777),
      uid: owner.uid,
      gid: owner.gid,
      size,
      nlink: attr.type === "dir" ? this.#dirLinks(attr.inode) : attr.nlink,
      ino: attr.inode,
      blksize: 4096,
      blocks: Math.ceil(size / 512),
      atime: msOf(times.atime),
      mtime: msOf(times.mtime),
      ctime: msOf(times.ctime),
      atimeNsec: nsecOf(times.atime),
      mtimeNsec: nsecOf(times.mtime),
      ctimeNsec: nsecOf(times.ctime),
    };
  }
}

/**
 * A name the kernel cannot take in a dirent without failing the whole
 * listing (EIO). The store refuses such names, but one stored by an older
 * version is left out of listings rather than breaking its directory.
 */
function fitsDirent(name: string): boolean {
  return name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name, "utf8") <= MAX_NAME_BYTES;
}

/** The last segment of a FUSE path is over NAME_MAX: a lookup answers ENAMETOOLONG, as on any Linux filesystem. */
function isLongName(path: string): boolean {
  return !fitsDirent(path.slice(path.lastIndexOf("/") + 1));
}

/**
 * How long a path below the mount point may be (UTF-8 bytes, a NUL
 * counted). Linux limits only the path one system call is given (PATH_MAX,
 * 4096); a process that changes into a directory can go deeper, so the
 * store is not held to PATH_MAX: 16 times it. The Durable Object's API keeps
 * PATH_MAX for the whole path, and sync skips (and reports) an entry longer.
 */
const BELOW_MOUNT_MAX_PATH_BYTES = 16 * 4096;

/** What mknod keeps in memory (special-files.ts); a regular file goes to the store. */
const SPECIAL_TYPES = new Set([constants.S_IFIFO, constants.S_IFSOCK, constants.S_IFCHR, constants.S_IFBLK]);

/** Commit an open file early once this many bytes are dirty: memory stays bounded on huge copies. */
const DIRTY_FLUSH_BYTES = 64 * 1024 * 1024;
/** Clean files kept after a read by inode (each may hold its last 512 KiB chunk read). */
const BY_INODE_KEPT = 16;
/** Directory inodes remembered for lookups; past this the map starts over (a walk refills it). */
const DIR_CACHE_LIMIT = 10_000;
/** Parked (closed, uncommitted) files are committed oldest first past this many bytes. */
const PARKED_LIMIT = 128 * 1024 * 1024;

const EMPTY = new Uint8Array(0);

/** The nanoseconds within a time's second. */
function nsecOf(ns: Nanos): number {
  return Number(((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n);
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A listing's `.` or `..`: a directory's number and type, the rest zero (the kernel reads nothing else of a dot entry). */
function dotStat(ino: number): FuseStat {
  return {
    mode: constants.S_IFDIR | 0o755,
    uid: 0,
    gid: 0,
    size: 0,
    nlink: 2,
    ino,
    blksize: 4096,
    blocks: 0,
    atime: 0,
    mtime: 0,
    ctime: 0,
    atimeNsec: 0,
    mtimeNsec: 0,
    ctimeNsec: 0,
  };
}

function detachedAttr(file: OpenFile): InodeAttr {
  return {
    inode: file.inode,
    type: "file",
    mode: file.mode,
    mtime: file.mtime,
    size: file.size,
    nlink: 0,
    linkTarget: null,
  };
}

/**
 * The state every room of MountFs shares (attributes.ts, names.ts,
 * open-files.ts, inode-files.ts): the handles, the per-inode files, parking,
 * the directory cache, owners and times, with the lookups and bookkeeping
 * each room needs. Its members are public to the rooms only: nothing outside
 * mount/fs/ holds a MountState (MountFs keeps it private).
 */
import { CHUNK_SIZE, type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { type ChildName, childAttr, type InodeAttr, inodeAttr, lookupInode } from "@cloudflare/dofs/inode";
import { EBADF, EEXIST, ENOENT, ErrnoError } from "../errno.js";
import { InodeOwners, type Owner, procGroups } from "../inode-owners.js";
import { InodeTimes, msOf, type Nanos, nanosOf, wallClock } from "../inode-times.js";
import { OpenFile } from "../open-file.js";
import { BufferPool } from "../pool.js";
import { SpecialFiles, type SpecialNode } from "../special-files.js";
import {
  BELOW_MOUNT_MAX_PATH_BYTES,
  DIR_CACHE_LIMIT,
  type DirRef,
  detachedAttr,
  type FuseStat,
  type Handle,
  type InodeAccess,
  type MountFsOptions,
  nsecOf,
  PARKED_LIMIT,
  S_ISGID,
  sha256,
  TYPE_BITS,
} from "./shared.js";

export class MountState {
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly root: string;
  /** The store's limit on a path: the mount point's own bytes plus BELOW_MOUNT_MAX_PATH_BYTES. */
  readonly maxPathBytes: number;
  /** Set for a store that outlives the daemon (OpenFiles.persistWith). */
  persist: (() => void) | undefined;
  readonly now: () => number;
  readonly clock: () => Nanos;
  /** ctime, atime, the mtime's nanoseconds and directory mtimes (inode-times.ts). */
  readonly times = new InodeTimes();
  readonly pool: BufferPool;
  readonly groupsOf: (pid: number) => readonly number[];
  readonly files = new Map<number, OpenFile>();
  readonly handles = new Map<number, Handle>();
  /** `.fuse_hidden*` paths (relative to the mount) → the inode they stand for. */
  readonly hidden = new Map<string, OpenFile>();
  /** FUSE directory path → inode and mode, for lookup; cleared by anything that moves or removes a name. */
  readonly dirs = new Map<string, DirRef>();
  /**
   * Some dirs path may run through a symlink (a walk found a directory
   * under a parent that is not a directory): removing one directory or
   * symlink then forgets every cached path, not just its own.
   */
  dirsThroughLinks = false;
  /** Who owns each inode (not stored; inode-owners.ts). */
  readonly owners: InodeOwners;
  /** FIFOs and sockets, in memory only (special-files.ts). */
  readonly specials = new SpecialFiles((ino) => {
    this.times.forget(ino);
    this.owners.forget(ino);
  });
  /** Directory inode → how many subdirectories it has (its link count is 2 more); dropped on any change. */
  readonly subdirs = new Map<number, number>();
  /** Closed files waiting for their commit, oldest first, with the bytes each was parked with. */
  readonly parked = new Map<OpenFile, number>();
  parkedBytes = 0;
  nextHandle = 1;
  /** Files reached by inode (no-open); see "Files by inode" below. */
  byInode: InodeAccess | undefined;
  /**
   * Files whose last name went while the kernel held their node (any
   * process may have them open without our knowing), by inode, kept with
   * their stored chunk list until the kernel forgets the node (forgetInode).
   */
  readonly orphans = new Map<number, OpenFile>();
  /** Clean files loaded for a request by inode, most recent last (a large file's reads reuse one); BY_INODE_KEPT at most. */
  readonly keptByInode = new Map<number, OpenFile>();
  /** The last file written by inode: its short last chunk is compacted once writes move to another file. */
  lastWritten: OpenFile | undefined;
  entryVersion = 0;
  applies = 0;
  /**
   * Counts changes to a file with more than one name. libfuse's high-level
   * API gives each name its own kernel inode, so the kernel's cached size
   * and pages of the other names go stale: the driver drops every cached
   * name (the epoch) before it answers such a change.
   */
  sharedChanges = 0;
  constructor(db: Database, mountPoint: string, options: MountFsOptions = {}) {
    this.db = db;
    this.owners = new InodeOwners({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });
    this.groupsOf = options.groupsOf ?? procGroups;
    const now = options.now;
    this.clock = now !== undefined ? () => nanosOf(now()) : wallClock();
    this.now = now ?? (() => msOf(this.clock()));
    this.root = mountPoint === "/" ? "" : mountPoint;
    this.maxPathBytes = Buffer.byteLength(this.root) + BELOW_MOUNT_MAX_PATH_BYTES;
    this.fs = new WorkspaceFilesystem(db, { now: this.now, maxPathBytes: this.maxPathBytes });
    this.pool = new BufferPool(CHUNK_SIZE, options.poolKeep ?? 160);
  }

  /** The dofs path of a FUSE path. */
  vfsPath(path: string): string {
    return path === "/" ? this.root || "/" : this.root + path;
  }

  /** The FUSE path of a dofs path; undefined outside the mount. */
  fusePath(vfsPath: string): string | undefined {
    if (this.root === "") return vfsPath;
    if (vfsPath === this.root) return "/";
    return vfsPath.startsWith(`${this.root}/`) ? vfsPath.slice(this.root.length) : undefined;
  }

  attr(path: string): InodeAttr {
    const hidden = this.hidden.get(path);
    if (hidden !== undefined) return inodeAttr(this.db, hidden.inode) ?? detachedAttr(hidden);
    const attr = this.lookup(path);
    if (attr === undefined) throw new ErrnoError(ENOENT, path);
    return attr;
  }

  /**
   * A path's node: its parent directory's inode from dirs (one query for the
   * name) instead of a walk from the root, one query per segment. A parent
   * that is missing, a file or a symlink takes the full walk, which also
   * knows ENOTDIR.
   */
  lookup(path: string): InodeAttr | undefined {
    if (path === "/") return lookupInode(this.db, this.vfsPath(path));
    const slash = path.lastIndexOf("/");
    const parent = this.dirInode(slash === 0 ? "/" : path.slice(0, slash));
    if (parent === undefined) {
      const attr = lookupInode(this.db, this.vfsPath(path));
      // Found by a walk although its parent is no known directory: through a symlink (see dirsThroughLinks).
      if (attr?.type === "dir") this.dirsThroughLinks = true;
      return attr;
    }
    return childAttr(this.db, parent, path.slice(slash + 1));
  }

  /** A path as its directory's inode and its name, when the directory is known (dirs): verbs that take one skip the walk. */
  childName(path: string): ChildName | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    const parent = this.dirInode(slash === 0 ? "/" : path.slice(0, slash));
    return parent === undefined ? undefined : { parent, name: path.slice(slash + 1) };
  }

  dirInode(path: string): number | undefined {
    return this.dirRef(path)?.inode;
  }

  dirRef(path: string): DirRef | undefined {
    const known = this.dirs.get(path);
    if (known !== undefined) return known;
    const attr = this.lookup(path);
    if (attr?.type !== "dir") return undefined;
    if (this.dirs.size >= DIR_CACHE_LIMIT) this.dirs.clear();
    const ref = { inode: attr.inode, mode: attr.mode };
    this.dirs.set(path, ref);
    return ref;
  }

  /** The directory a path names an entry of, undefined when it cannot be found. */
  parentDir(path: string): DirRef | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    return this.dirRef(slash === 0 ? "/" : path.slice(0, slash));
  }

  /**
   * A new inode's owner (mkdir, create, symlink, mknod): the caller, and in
   * a setgid directory the directory's group. Nothing is held for the
   * default owner, so root's tree costs no lookup here.
   */
  own(inode: number | (() => number | undefined), parent: DirRef | undefined, caller: Owner | undefined): void {
    const owner: Owner = caller ?? this.owners.default;
    const gid = parent !== undefined && (parent.mode & S_ISGID) !== 0 ? this.owners.get(parent.inode).gid : owner.gid;
    if (owner.uid === this.owners.default.uid && gid === this.owners.default.gid) return;
    const ino = typeof inode === "number" ? inode : inode();
    if (ino !== undefined) this.owners.set(ino, owner.uid, gid);
  }

  /** The FIFO or socket a path names (after the store had no such name). */
  specialAt(path: string): SpecialNode | undefined {
    if (this.specials.empty) return undefined;
    const at = this.childName(path);
    return at === undefined ? undefined : this.specials.get(at.parent, at.name);
  }

  refuseSpecial(path: string): void {
    if (this.specialAt(path) !== undefined) throw new ErrnoError(EEXIST, path);
  }

  /** A directory gained (1) or lost (-1) a subdirectory: its count follows when known. */
  subdirsChanged(dir: number, by: number): void {
    const count = this.subdirs.get(dir);
    if (count !== undefined) this.subdirs.set(dir, count + by);
  }

  /** 2 plus its subdirectories, as on any Linux filesystem (`find` and `ls` rely on it). */
  dirLinks(inode: number): number {
    let count = this.subdirs.get(inode);
    if (count === undefined) {
      const row = this.db.one<{ n: number }>(
        `SELECT count(*) AS n FROM vfs_dirents d JOIN vfs_nodes n ON n.inode = d.child_inode
          WHERE d.parent_inode = ? AND n.type = 'dir'`,
        inode,
      );
      count = Number(row?.n ?? 0);
      if (this.subdirs.size >= DIR_CACHE_LIMIT) this.subdirs.clear();
      this.subdirs.set(inode, count);
    }
    return 2 + count;
  }

  specialStat(node: SpecialNode): FuseStat {
    const owner = this.owners.get(node.ino);
    const times = this.times.get(node.ino, node.bornMs);
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
  forgetDirs(): void {
    this.dirs.clear();
    this.dirsThroughLinks = false;
  }

  openFile(attr: InodeAttr, vfsPath: string): OpenFile {
    let file = this.files.get(attr.inode);
    if (file === undefined) {
      file = new OpenFile(this.db, this.pool, attr.inode, attr.size, attr.mtime, vfsPath);
      this.files.set(attr.inode, file);
    }
    file.shared = attr.nlink > 1;
    return file;
  }

  handle(fd: number): Handle {
    const handle = this.handles.get(fd);
    if (handle === undefined) throw new ErrnoError(EBADF, `fd ${fd}`);
    return handle;
  }

  commit(file: OpenFile): void {
    if (file.detached) return;
    this.unpark(file);
    file.commit(this.chunkHash, this.now());
  }

  /** A frozen buffer's hash is kept by the pool: bytes shared by copy_file_range are hashed once. */
  readonly chunkHash = (bytes: Uint8Array): string =>
    bytes instanceof Buffer && this.pool.isFrozen(bytes) ? this.pool.hashOf(bytes, sha256) : sha256(bytes);

  /**
   * The last handle closed. A clean file is forgotten; a dirty one is parked:
   * its commit (hashing and storing) waits until someone needs the store to
   * be current (a fetchChanges, a push, an fsync), or until parked files
   * hold PARKED_LIMIT bytes. A file written and then deleted, or rewritten,
   * before that is never hashed at all, and close() is never slowed by it.
   */
  park(file: OpenFile, compact = true): void {
    if (!file.isDirty || file.detached) {
      this.forget(file);
      return;
    }
    this.unpark(file);
    if (compact) file.compact();
    this.parked.set(file, file.dirtyBytes);
    this.parkedBytes += file.dirtyBytes;
    // Under the limit nothing commits: no copy of the parked list (thousands during a tar -x) per close.
    if (this.parkedBytes <= PARKED_LIMIT) return;
    for (const oldest of [...this.parked.keys()]) {
      if (this.parkedBytes <= PARKED_LIMIT) break;
      this.commit(oldest);
      if (oldest.refs === 0) this.forget(oldest);
    }
  }

  unpark(file: OpenFile): void {
    const bytes = this.parked.get(file);
    if (bytes === undefined) return;
    this.parked.delete(file);
    this.parkedBytes -= bytes;
  }

  forget(file: OpenFile): void {
    this.unpark(file);
    // An orphan's buffers are its only copy of its bytes: they go with forgetInode.
    if (this.orphans.get(file.inode) === file) return;
    file.release();
    if (this.files.get(file.inode) === file) this.files.delete(file.inode);
  }

  /** A file's contents change at one instant: its buffered mtime (ms) and times (ns) agree. */
  modify<T>(file: OpenFile, change: (nowMs: number) => T): T {
    const at = this.clock();
    const before = file.mtime;
    const result = change(msOf(at));
    this.times.modified(file.inode, at, before, file.mtime);
    return result;
  }

  /** A directory gained, lost or renamed an entry: its mtime and ctime move (not stored, see inode-times.ts). */
  entriesChanged(dir: number | undefined, at: Nanos = this.clock()): void {
    this.entryVersion++;
    if (dir !== undefined) this.times.modified(dir, at);
  }

  /**
   * One name of `attr` was removed: a file that keeps others changed (its
   * link count), the last name frees its times. `held`: a handle still
   * reaches the file (unlink knows it in O(1); the rest ask handlesReach).
   */
  nameGone(attr: InodeAttr, held?: boolean): void {
    if (attr.nlink > 1) this.times.changed(attr.inode, this.clock());
    else if (attr.type !== "file" || !(this.orphans.has(attr.inode) || (held ?? this.handlesReach(attr.inode)))) {
      this.times.forget(attr.inode);
      this.owners.forget(attr.inode);
    } else {
      // Unlinked while open: fstat shows a link count of 0 and a new ctime.
      this.times.changed(attr.inode, this.clock());
    }
  }

  handlesReach(inode: number): boolean {
    for (const handle of this.handles.values()) if (handle.file.inode === inode) return true;
    return false;
  }

  /** The inode of a path's directory, undefined when it cannot be found. */
  parentInode(path: string): number | undefined {
    const slash = path.lastIndexOf("/");
    if (path === "/" || slash < 0) return undefined;
    return this.dirInode(slash === 0 ? "/" : path.slice(0, slash));
  }

  /**
   * An open file losing its last name lives on in memory until its handles
   * close: its stored chunks stay readable (blobs go only at gc), its dirty
   * ones stay in the buffer, and nothing of it commits again.
   */
  detachIfLastName(attr: InodeAttr): void {
    if (attr.type !== "file" || attr.nlink > 1) return;
    // A node the kernel holds may be open without our knowing (no-open): it is kept until the kernel forgets it.
    const held = this.byInode?.holds(attr.inode) === true;
    let file = this.files.get(attr.inode);
    if (file === undefined) {
      if (!held) return;
      file = new OpenFile(this.db, this.pool, attr.inode, attr.size, attr.mtime, `inode ${attr.inode}`);
    }
    this.unpark(file);
    // Only its handles (and the kernel's node) reach it now.
    this.files.delete(attr.inode);
    this.keptByInode.delete(attr.inode);
    // Nothing can read it again (no handle, no node the kernel holds): its stored chunks need not be kept.
    if (!held && file.refs === 0) {
      file.release();
      return;
    }
    file.mode = file.pendingMode ?? attr.mode;
    // An empty stored file (a parked one tar -x made) has no chunk rows: nothing to load.
    file.detach(attr.size === 0);
    if (held) this.orphans.set(attr.inode, file);
  }

  stat(attr: InodeAttr, open: OpenFile | undefined): FuseStat {
    // A symlink's size is its target's length in bytes, as lstat reports it.
    const size = open?.size ?? (attr.type === "symlink" ? Buffer.byteLength(attr.linkTarget ?? "") : attr.size);
    const times = this.times.get(attr.inode, open?.mtime ?? attr.mtime);
    const owner = this.owners.get(attr.inode);
    return {
      mode: TYPE_BITS[attr.type] | ((open?.pendingMode ?? attr.mode) & 0o7777),
      uid: owner.uid,
      gid: owner.gid,
      size,
      nlink: attr.type === "dir" ? this.dirLinks(attr.inode) : attr.nlink,
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

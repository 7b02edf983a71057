/**
 * MountFs's names room: listings, mkdir, rmdir, unlink, rename, link,
 * symlink, mknod and readlink, FIFOs and sockets (special-files.ts)
 * included, and libfuse 2's `.fuse_hidden` rename of a file unlinked while open.
 */
import { constants } from "node:fs";
import { isNameTooLong } from "@cloudflare/dofs";
import { childAttrs, type InodeAttr, lookupInode, mkdirInode, rmdirChild, unlinkChild } from "@cloudflare/dofs/inode";
import { EEXIST, EINVAL, EISDIR, ENAMETOOLONG, ENOENT, ENOTDIR, ENOTEMPTY, EPERM, ErrnoError } from "../errno.js";
import type { Caller } from "../inode-owners.js";
import { msOf } from "../inode-times.js";
import type { SpecialNode } from "../special-files.js";
import type { Attributes } from "./attributes.js";
import type { OpenFiles } from "./open-files.js";
import {
  DIR_CACHE_LIMIT,
  dotStat,
  type FuseStat,
  fitsDirent,
  HIDDEN_PREFIX,
  isLongName,
  S_IFMT,
  S_ISGID,
  SPECIAL_TYPES,
} from "./shared.js";
import type { MountState } from "./state.js";

export class Names {
  readonly #state: MountState;
  readonly #attributes: Attributes;
  readonly #openFiles: OpenFiles;

  constructor(state: MountState, attributes: Attributes, openFiles: OpenFiles) {
    this.#state = state;
    this.#attributes = attributes;
    this.#openFiles = openFiles;
  }

  async readdir(path: string): Promise<string[]> {
    const attr = this.#state.attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    this.#state.times.accessed(attr.inode, attr.mtime, this.#state.clock());
    const entries = await this.#state.fs.readdir(this.#state.vfsPath(path));
    const specials = this.#state.specials.list(attr.inode).map(([name]) => name);
    return [".", "..", ...entries.map((entry) => entry.name).filter(fitsDirent), ...specials];
  }

  /**
   * readdir with every entry's attributes (`.` and `..` included), so a
   * readdirplus reply leaves the kernel entries it can use without a lookup
   * each (find, ls -l, git status). Open and parked files show their
   * buffered size and mtime.
   */
  readdirPlus(path: string): { names: string[]; stats: FuseStat[] } {
    const attr = this.#state.attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    // A listing is a read of the directory (relatime); before the attributes below, which it may move.
    this.#state.times.accessed(attr.inode, attr.mtime, this.#state.clock());
    // `.` and `..` carry a number and a type only (no driver hands the kernel their attributes): no queries.
    const self = dotStat(attr.inode);
    const parentDir = path === "/" ? undefined : this.#state.parentDir(path);
    const parent = parentDir === undefined ? self : dotStat(parentDir.inode);
    const names = [".", ".."];
    const stats = [self, parent];
    for (const child of childAttrs(this.#state.db, attr.inode)) {
      if (!fitsDirent(child.name)) continue;
      names.push(child.name);
      stats.push(this.#state.stat(child.attr, this.#state.files.get(child.attr.inode)));
    }
    for (const [name, node] of this.#state.specials.list(attr.inode)) {
      names.push(name);
      stats.push(this.#state.specialStat(node));
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
    const parent = this.#state.parentDir(path);
    this.#state.refuseSpecial(path);
    const setgid = parent !== undefined && (parent.mode & S_ISGID) !== 0 ? S_ISGID : 0;
    const vfsPath = this.#state.vfsPath(path);
    if (parent === undefined || isNameTooLong(vfsPath, this.#state.maxPathBytes)) {
      return this.#state.fs.mkdir(vfsPath, { mode: (mode & 0o7777) | setgid }).then(() => {
        this.#state.own(() => this.#state.lookup(path)?.inode, parent, caller);
        this.#state.entriesChanged(parent?.inode);
        return this.#attributes.getattr(path);
      });
    }
    const at = this.#state.clock();
    const child = { parent: parent.inode, name: path.slice(path.lastIndexOf("/") + 1) };
    const attr = mkdirInode(this.#state.db, vfsPath, (mode & 0o7777) | setgid, msOf(at), child);
    // Counted as they change: a tree made top-down (tar -x) never needs a count query to list.
    this.#state.subdirsChanged(parent.inode, 1);
    if (this.#state.subdirs.size < DIR_CACHE_LIMIT) this.#state.subdirs.set(attr.inode, 0);
    this.#state.times.born(attr.inode, at);
    this.#state.own(attr.inode, parent, caller);
    this.#state.entriesChanged(parent.inode, at);
    return this.#state.stat(attr, undefined);
  }

  async rmdir(path: string): Promise<void> {
    const attr = this.#state.attr(path);
    if (attr.type !== "dir") throw new ErrnoError(ENOTDIR, path);
    // FIFOs and sockets are entries too, though the store does not hold them.
    if (this.#state.specials.hasEntries(attr.inode)) throw new ErrnoError(ENOTEMPTY, path);
    const at = this.#state.childName(path);
    const parent = at?.parent ?? this.#state.parentInode(path);
    if (at === undefined) {
      this.#state.forgetDirs();
      await this.#state.fs.rm(this.#state.vfsPath(path));
    } else {
      // Empty, so the only cached path it can be under is its own (and aliases through a symlink, see state.dirsThroughLinks).
      rmdirChild(this.#state.db, at, this.#state.vfsPath(path), this.#state.now(), attr.inode);
      if (this.#state.dirsThroughLinks) this.#state.forgetDirs();
      else this.#state.dirs.delete(path);
    }
    this.#state.times.forget(attr.inode);
    this.#state.owners.forget(attr.inode);
    this.#state.subdirs.delete(attr.inode);
    if (parent !== undefined) this.#state.subdirsChanged(parent, -1);
    this.#state.entriesChanged(parent);
  }

  async unlink(path: string): Promise<void> {
    if (this.#state.hidden.delete(path)) return;
    if (this.#unlinkSpecial(path)) return;
    const attr = this.#state.attr(path);
    if (attr.type === "dir") throw new ErrnoError(EISDIR, path);
    // A cached directory path may run through the symlink (only if some walk went through one).
    if (attr.type === "symlink" && this.#state.dirsThroughLinks) this.#state.forgetDirs();
    // Read before the detach below takes the file out of state.files: does a handle still reach it?
    const open = this.#state.files.get(attr.inode);
    // libfuse 3 with hard_remove unlinks an open file directly (libfuse 2 renames it to .fuse_hidden first).
    this.#state.detachIfLastName(attr);
    if (attr.nlink > 1) this.#state.sharedChanges++;
    const at = this.#state.childName(path);
    const parent = at?.parent ?? this.#state.parentInode(path);
    if (at === undefined) await this.#state.fs.rm(this.#state.vfsPath(path));
    // attr was read just now (state.attr above, nothing awaited since): dofs does not read the name again.
    else unlinkChild(this.#state.db, at, this.#state.vfsPath(path), this.#state.now(), attr);
    this.#state.nameGone(attr, open !== undefined && open.refs > 0);
    this.#state.entriesChanged(parent);
  }

  async rename(from: string, to: string): Promise<void> {
    const name = to.slice(to.lastIndexOf("/") + 1);
    if (name.startsWith(HIDDEN_PREFIX)) return this.#hide(from, to);
    if (!this.#state.specials.empty) {
      const special = this.#state.specialAt(from);
      if (special !== undefined) return this.#renameSpecial(special, from, to);
      const over = this.#state.specialAt(to);
      if (over !== undefined) {
        if (this.#state.attr(from).type === "dir") throw new ErrnoError(ENOTDIR, to);
        this.#unlinkSpecial(to);
      }
    }
    const attr = this.#state.attr(from);
    const fromParent = this.#state.parentInode(from);
    const toParent = this.#state.parentInode(to);
    const replaced = lookupInode(this.#state.db, this.#state.vfsPath(to));
    if (replaced?.type === "dir" && this.#state.specials.hasEntries(replaced.inode))
      throw new ErrnoError(ENOTEMPTY, to);
    // Only a directory moving or going (or a symlink a cached path may run through) moves cached directory
    // paths; git's and npm's renames of files keep them.
    const moves = (node: InodeAttr | undefined): boolean =>
      node?.type === "dir" || (node?.type === "symlink" && this.#state.dirsThroughLinks);
    if (moves(attr) || moves(replaced)) {
      this.#state.forgetDirs();
      if (fromParent !== undefined) this.#state.subdirs.delete(fromParent);
      if (toParent !== undefined) this.#state.subdirs.delete(toParent);
    }
    if (replaced !== undefined && replaced.inode !== attr.inode) {
      this.#state.detachIfLastName(replaced);
      if (replaced.nlink > 1) this.#state.sharedChanges++;
    }
    await this.#state.fs.rename(this.#state.vfsPath(from), this.#state.vfsPath(to));
    const open = this.#state.files.get(attr.inode);
    if (open !== undefined) open.path = this.#state.vfsPath(to);
    // rename(2) onto another name of the same file changes nothing.
    if (replaced?.inode === attr.inode) return;
    if (replaced !== undefined) this.#state.nameGone(replaced);
    // Its other names show the new ctime too (see sharedChanges).
    if (attr.nlink > 1) this.#state.sharedChanges++;
    const at = this.#state.clock();
    this.#state.times.changed(attr.inode, at);
    this.#state.entriesChanged(fromParent, at);
    if (toParent !== fromParent) this.#state.entriesChanged(toParent, at);
  }

  async link(existing: string, path: string): Promise<void> {
    const special = this.#state.specialAt(existing);
    if (special !== undefined) return this.#linkSpecial(special, path);
    this.#state.refuseSpecial(path);
    const source = this.#state.lookup(existing);
    if (source?.type === "symlink") return this.#copySymlink(source, path);
    await this.#state.fs.link(this.#state.vfsPath(existing), this.#state.vfsPath(path));
    const open = source === undefined ? undefined : this.#state.files.get(source.inode);
    if (open !== undefined) open.shared = true;
    this.#state.sharedChanges++;
    const at = this.#state.clock();
    if (source !== undefined) this.#state.times.changed(source.inode, at);
    this.#state.entriesChanged(this.#state.parentInode(path), at);
  }

  /**
   * A hard link of a symlink (`cp -al`, `ln` of a link: link(2) does not
   * follow it): dofs links only files, as the workspace API does, so the new
   * name is a copy, a symlink of its own with the same target and owner.
   * Its link count stays 1 and it has an inode of its own.
   */
  async #copySymlink(source: InodeAttr, path: string): Promise<void> {
    const parent = this.#state.parentDir(path);
    await this.#state.fs.symlink(source.linkTarget ?? "", this.#state.vfsPath(path));
    // The source's owner as it is: no setgid directory's group (a link is the same inode, not a new one).
    this.#state.own(() => this.#state.lookup(path)?.inode, undefined, this.#state.owners.get(source.inode));
    this.#state.entriesChanged(parent?.inode);
  }

  async symlink(target: string, path: string, caller?: Caller): Promise<void> {
    const parent = this.#state.parentDir(path);
    this.#state.refuseSpecial(path);
    await this.#state.fs.symlink(target, this.#state.vfsPath(path));
    this.#state.own(() => this.#state.lookup(path)?.inode, parent, caller);
    this.#state.entriesChanged(parent?.inode);
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
        const stat = this.#attributes.fgetattr(fd);
        this.#openFiles.release(fd);
        return stat;
      };
      const fd = this.#openFiles.create(path, mode, caller);
      return typeof fd === "number" ? made(fd) : fd.then(made);
    }
    if (!SPECIAL_TYPES.has(type)) throw new ErrnoError(EINVAL, path);
    const device = type === constants.S_IFCHR || type === constants.S_IFBLK;
    if (isLongName(path)) throw new ErrnoError(ENAMETOOLONG, path);
    const parent = this.#state.parentDir(path);
    if (parent === undefined) throw new ErrnoError(ENOENT, path);
    if (this.#state.lookup(path) !== undefined || this.#state.specialAt(path) !== undefined)
      throw new ErrnoError(EEXIST, path);
    const at = this.#state.clock();
    const node = this.#state.specials.add(
      parent.inode,
      path.slice(path.lastIndexOf("/") + 1),
      type | (mode & 0o7777),
      msOf(at),
      device ? rdev : 0,
    );
    this.#state.times.born(node.ino, at);
    this.#state.own(node.ino, parent, caller);
    this.#state.entriesChanged(parent.inode, at);
    return this.#state.specialStat(node);
  }

  /** Following a symlink reads it (relatime moves its atime, as on tmpfs). */
  async readlink(path: string): Promise<string> {
    const attr = this.#state.lookup(path);
    if (attr !== undefined) this.#state.times.accessed(attr.inode, attr.mtime, this.#state.clock());
    return this.#state.fs.readlink(this.#state.vfsPath(path));
  }

  /** Removes a FIFO's or socket's name; false when the path names none. */
  #unlinkSpecial(path: string): boolean {
    if (this.#state.specials.empty) return false;
    const at = this.#state.childName(path);
    const removed = at === undefined ? undefined : this.#state.specials.remove(at.parent, at.name);
    if (at === undefined || removed === undefined) return false;
    const now = this.#state.clock();
    // The last name: a process may still hold it open (its fstat shows a link count of 0).
    this.#state.times.changed(removed.node.ino, now);
    if (!removed.last) this.#state.sharedChanges++;
    this.#state.entriesChanged(at.parent, now);
    return true;
  }

  async #renameSpecial(node: SpecialNode, from: string, to: string): Promise<void> {
    const source = this.#state.childName(from);
    const target = this.#state.childName(to);
    if (source === undefined || target === undefined) throw new ErrnoError(ENOENT, to);
    const over = this.#state.specials.get(target.parent, target.name);
    if (over === node) return;
    if (over !== undefined) this.#unlinkSpecial(to);
    const replaced = this.#state.lookup(to);
    if (replaced?.type === "dir") throw new ErrnoError(EISDIR, to);
    if (replaced !== undefined) await this.unlink(to);
    this.#state.specials.move(source.parent, source.name, target.parent, target.name);
    if (node.names.length > 1) this.#state.sharedChanges++;
    const at = this.#state.clock();
    this.#state.times.changed(node.ino, at);
    this.#state.entriesChanged(source.parent, at);
    if (target.parent !== source.parent) this.#state.entriesChanged(target.parent, at);
  }

  #linkSpecial(node: SpecialNode, path: string): void {
    const target = this.#state.childName(path);
    if (target === undefined) throw new ErrnoError(ENOENT, path);
    if (this.#state.lookup(path) !== undefined || this.#state.specials.get(target.parent, target.name) !== undefined) {
      throw new ErrnoError(EEXIST, path);
    }
    this.#state.specials.link(node, target.parent, target.name);
    this.#state.sharedChanges++;
    const at = this.#state.clock();
    this.#state.times.changed(node.ino, at);
    this.#state.entriesChanged(target.parent, at);
  }

  /**
   * A file unlinked while open: libfuse renames it to `.fuse_hidden…` and
   * unlinks that name on the last release. The hidden name never reaches the
   * store (it would sync to the Durable Object): the real name is removed now,
   * and the open file lives on in memory until its handles close.
   */
  async #hide(from: string, to: string): Promise<void> {
    const attr = this.#state.attr(from);
    if (attr.type !== "file") throw new ErrnoError(EPERM, from);
    const file = this.#state.openFile(attr, this.#state.vfsPath(from));
    file.mode = file.pendingMode ?? attr.mode;
    this.#state.commit(file);
    if (attr.nlink <= 1) file.detach();
    this.#state.hidden.set(to, file);
    const parent = this.#state.parentInode(from);
    await this.#state.fs.rm(this.#state.vfsPath(from));
    this.#state.entriesChanged(parent);
  }
}

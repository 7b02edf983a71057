/**
 * MountFs's room for files by inode (no-open). The kernel driver with
 * no-open sees no OPEN and no RELEASE for a file opened by name: its READ,
 * WRITE, FSYNC and SETATTR come with handle 0. They reach the inode's one
 * OpenFile (the one its handles share) through an inode reference instead
 * of a handle. What lives by inode: a clean file loaded for a read (a few
 * kept, then dropped: it is loaded again when asked for); a file written by
 * inode, parked at once since no close will come (committed as parked files
 * are); and an orphan, a file whose last name went while the kernel held its
 * node, kept until the kernel forgets the node.
 */
import { inodeAttr, pathOfInode } from "@cloudflare/dofs/inode";
import { EISDIR, ErrnoError, ESTALE } from "../errno.js";
import type { OpenFile } from "../open-file.js";
import { SpecialFiles } from "../special-files.js";
import { BY_INODE_KEPT, detachedAttr, type FuseStat, type InodeAccess } from "./shared.js";
import type { MountState } from "./state.js";

export class InodeFiles {
  readonly #state: MountState;

  constructor(state: MountState) {
    this.#state = state;
  }

  /**
   * Serves files by inode from now on: `access` says which inodes the
   * kernel holds (their files are kept past their last name) and by what
   * name (the path a file loaded by inode commits under).
   */
  serveByInode(access: InodeAccess): void {
    this.#state.byInode = access;
  }

  /**
   * Closes handle `fd`, keeping its file for requests by inode: with
   * no-open the kernel sends no RELEASE at all, not even for a CREATE or
   * TMPFILE, so those answer handle 0 and their file lives by inode (a
   * dirty one parked, a clean one kept for the first write, an O_TMPFILE
   * file as an orphan until the kernel forgets its node).
   */
  releaseToInode(fd: number): void {
    const { file } = this.#state.handle(fd);
    this.#state.handles.delete(fd);
    file.refs--;
    if (file.refs > 0) return;
    if (file.detached) this.#state.orphans.set(file.inode, file);
    else if (file.isDirty) this.#state.park(file);
    else this.keepByInode(file);
  }

  /**
   * The kernel forgot `inode`'s node: an orphan goes now (its last opener
   * closed: an unlinked inode is evicted then), with its times and owner
   * unless a handle still reaches it.
   */
  forgetInode(inode: number): void {
    const orphan = this.#state.orphans.get(inode);
    if (orphan === undefined) return;
    this.#state.orphans.delete(inode);
    if (orphan.refs > 0) return;
    orphan.release();
    this.#state.times.forget(inode);
    this.#state.owners.forget(inode);
  }

  /** A file is kept for `inode` past its last name, until the kernel forgets the node. */
  isOrphan(inode: number): boolean {
    return this.#state.orphans.has(inode);
  }

  /**
   * Before a push applies (after prepareApply), for a file the kernel holds
   * at a path the push changes: its stored chunk list is loaded now, while
   * the rows exist, so a process that has it open reads it still if the
   * push deletes it (invalidate keeps it as an orphan).
   */
  keepForApply(inode: number): void {
    if (this.#state.orphans.has(inode) || SpecialFiles.isSpecialIno(inode)) return;
    let file = this.#state.files.get(inode);
    if (file === undefined) {
      const attr = inodeAttr(this.#state.db, inode);
      const path = this.#state.byInode?.pathOf(inode) ?? this.#storePath(inode);
      if (attr?.type !== "file" || path === undefined) return;
      file = this.#state.openFile(attr, this.#state.vfsPath(path));
    }
    file.keepStoredChunks();
  }

  fileOf(ref: number): OpenFile {
    return ref > 0 ? this.#state.handle(ref).file : this.#inodeFile(-ref);
  }

  #inodeFile(inode: number): OpenFile {
    const known = this.#state.files.get(inode) ?? this.#state.orphans.get(inode);
    if (known !== undefined) {
      if (this.#state.keptByInode.delete(inode)) this.#state.keptByInode.set(inode, known);
      return known;
    }
    const attr = SpecialFiles.isSpecialIno(inode) ? undefined : inodeAttr(this.#state.db, inode);
    if (attr === undefined) {
      // An O_TMPFILE file reopened through /proc/self/fd (no name, no orphan): its handle has it.
      for (const handle of this.#state.handles.values()) if (handle.file.inode === inode) return handle.file;
      throw new ErrnoError(ESTALE, `inode ${inode}`);
    }
    if (attr.type === "dir") throw new ErrnoError(EISDIR, `inode ${inode}`);
    const path = this.#state.byInode?.pathOf(inode) ?? this.#storePath(inode);
    if (path === undefined) throw new ErrnoError(ESTALE, `inode ${inode}`);
    const file = this.#state.openFile(attr, this.#state.vfsPath(path));
    this.keepByInode(file);
    return file;
  }

  /** A FUSE path of a stored inode, from its names in the store (a hard link the kernel knows only by a name removed since); undefined outside the mount. */
  #storePath(inode: number): string | undefined {
    const path = pathOfInode(this.#state.db, inode);
    return path === null ? undefined : this.#state.fusePath(path);
  }

  /** A clean file loaded by inode stays for the next request; the least recently used past BY_INODE_KEPT go. */
  keepByInode(file: OpenFile): void {
    this.#state.keptByInode.delete(file.inode);
    this.#state.keptByInode.set(file.inode, file);
    if (this.#state.keptByInode.size <= BY_INODE_KEPT) return;
    const [inode, oldest] = this.#state.keptByInode.entries().next().value as [number, OpenFile];
    this.#state.keptByInode.delete(inode);
    // Written since (parked) or opened by a handle meanwhile: not ours to drop.
    if (oldest.refs === 0 && !oldest.isDirty && this.#state.files.get(inode) === oldest) this.#state.forget(oldest);
  }

  /**
   * Before a change by inode: a file written by inode sees no close, so its
   * short last chunk is compacted once writes move to another file (after
   * each write, a 4 KiB append would copy the chunk twice). Done before the
   * change, so the buffer it hands back serves the new file's write (a
   * tar -x reuses one warm buffer instead of alternating two).
   */
  writingByInode(file: OpenFile): void {
    const previous = this.#state.lastWritten;
    if (previous === file) return;
    this.#state.lastWritten = file;
    if (previous !== undefined && previous.refs === 0 && this.#state.parked.has(previous)) this.#state.park(previous);
  }

  /** After a change by inode: parked at once (no close will come), its bytes count against PARKED_LIMIT. */
  parkWritten(file: OpenFile): void {
    // A handle's release parks it; an orphan never commits; parked with these bytes already (a write within
    // its chunks), it stays as it is.
    if (file.refs > 0 || file.detached || this.#state.parked.get(file) === file.dirtyBytes) return;
    this.#state.park(file, false);
  }

  /** fstat of a file the kernel holds after its last name went: the orphan knows its size, times and mode. */
  orphanStat(inode: number): FuseStat | undefined {
    const orphan = this.#state.orphans.get(inode);
    return orphan === undefined ? undefined : this.#state.stat(detachedAttr(orphan), orphan);
  }
}

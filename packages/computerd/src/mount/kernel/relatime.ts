/**
 * relatime on what the kernel keeps. FUSE inodes are S_NOATIME: the kernel
 * never moves an atime itself, and a read it answers from pages it keeps
 * (pages an earlier read brought, pages a write filled whole, a listing
 * kept with no-opendir) never reaches the daemon, where MountFs moves the
 * atime. Left alone, a file read once, or written in whole pages, kept its
 * atime through every later read, however its mtime moved.
 *
 * So after any change that makes relatime's next read move the atime (every
 * mtime or ctime change, an atime set back: InodeTimes reports them all),
 * the kernel drops the start of what it keeps of that file or listing
 * (INVAL_INODE of the first 128 KiB), and the next read from the start
 * reaches the daemon. Only the start: a large file just written is still
 * read from the kernel's pages past it. The notifications of one request go
 * right after its reply, together, in one job of a worker thread (they wait
 * on page locks that requests this loop must answer may hold).
 *
 * Off with the writeback cache: dropping a dirty page writes it back at
 * once, which would undo what that cache is for (docs/computerd.md).
 */
import type { NodeTable } from "./nodes.js";
import { Notify, OUT_HEADER, writeNotifyHeader, writeU64 } from "./protocol.js";
import type { Session } from "./session.js";

const PAGE = 4096;
/**
 * What goes: the first 128 KiB (a readahead window), so the next read of a
 * small file is one READ of all of it, as it was before any page was kept,
 * and a large one's is one more.
 */
const DROPPED = 128 * 1024;
/** fuse_notify_inval_inode_out: nodeid, offset, length. */
const INVAL_INODE_SIZE = 24;
const MESSAGE = OUT_HEADER + INVAL_INODE_SIZE;

export class RelatimePages {
  readonly #session: Session;
  readonly #nodes: NodeTable;
  /** inode → node id: files whose pages the kernel may keep. */
  readonly #kept = new Map<number, number>();
  /** inode → node id: directories whose listing the kernel may keep. */
  readonly #listed = new Map<number, number>();
  /** Node ids whose page 0 goes at the next flush. */
  readonly #due = new Set<number>();
  /** False with the writeback cache (set at INIT). */
  enabled = true;

  constructor(session: Session, nodes: NodeTable) {
    this.#session = session;
    this.#nodes = nodes;
  }

  /** A READ answered: the kernel may keep the pages it got. */
  read(nodeid: number): void {
    if (this.enabled) this.#kept.set(this.#nodes.inodeOf(nodeid), nodeid);
  }

  /** A listing answered from its start, without a handle: the kernel may keep it (CACHE_DIR). */
  listed(nodeid: number): void {
    if (this.enabled) this.#listed.set(this.#nodes.inodeOf(nodeid), nodeid);
  }

  /**
   * A WRITE answered (after MountFs moved the mtime): without the writeback
   * cache the kernel keeps the pages a write filled whole. Page 0 is the one
   * that matters (a page it read is `kept` already).
   */
  wrote(nodeid: number, offset: number, size: number): void {
    if (this.enabled && offset === 0 && size >= PAGE) this.#due.add(nodeid);
  }

  /**
   * An inode's times moved (InodeTimes.onChange); `contents` when its mtime
   * did: a write, or an entry change of a directory, after which the kernel
   * starts its kept listing over by itself.
   */
  changed(inode: number, contents: boolean): void {
    const kept = this.#kept.get(inode) ?? (contents ? undefined : this.#listed.get(inode));
    if (kept === undefined) return;
    this.#kept.delete(inode);
    this.#listed.delete(inode);
    this.#due.add(kept);
  }

  /** The kernel forgot the node: it keeps nothing of it. */
  forgotten(inode: number): void {
    this.#kept.delete(inode);
    this.#listed.delete(inode);
  }

  /**
   * After each reply (Session.onReplied), not before it: the pages of a
   * WRITE stay locked until the kernel has its answer. At once, so that what
   * the caller does next (tar's chmod, git's lstat) refreshes the
   * attributes INVAL_INODE drops with the pages.
   */
  readonly flush = (): void => {
    if (this.#due.size === 0) return;
    const messages = Buffer.allocUnsafe(this.#due.size * MESSAGE);
    let at = 0;
    for (const nodeid of this.#due) {
      writeNotifyHeader(messages, at, Notify.INVAL_INODE, INVAL_INODE_SIZE);
      writeU64(messages, at + OUT_HEADER, nodeid);
      writeU64(messages, at + OUT_HEADER + 8, 0);
      writeU64(messages, at + OUT_HEADER + 16, DROPPED);
      at += MESSAGE;
    }
    this.#due.clear();
    // ENOENT: the kernel had forgotten the node; any other failure leaves only an atime behind.
    void this.#session.notifyAll(messages, at);
  };
}

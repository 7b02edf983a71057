/** What every op group shares: the filesystem, the node table, the session and the cache timeouts. */
import { constants } from "node:os";
import { ErrnoError } from "../errno.js";
import type { Caller } from "../inode-owners.js";
import { type FuseStat, MountFs } from "../mount-fs.js";
import type { NodeTable } from "./nodes.js";
import { ENTRY_OUT_SIZE, Notify, type Timeout, writeEntry, writeU64 } from "./protocol.js";
import type { RelatimePages } from "./relatime.js";
import type { Request, Session } from "./session.js";

export const ESTALE = -constants.errno.ESTALE;

export interface KernelContext {
  readonly fs: MountFs;
  /** Where the mount is, for the daemon's own rare use of it (from a child process: teachNoOpen in file-ops.ts). */
  readonly mountPoint: string;
  readonly nodes: NodeTable;
  readonly session: Session;
  /** How long the kernel keeps a name, its absence, and attributes; pushes invalidate them explicitly. */
  readonly entryTimeout: Timeout;
  readonly negativeTimeout: Timeout;
  readonly attrTimeout: Timeout;
  /** Open file handles by node: a node whose every name is gone still answers GETATTR through one. */
  readonly handles: Map<number, Set<number>>;
  /**
   * Set at INIT (init.ts): the first OPEN and OPENDIR answer ENOSYS, and
   * from then on files and directories are used with handle 0 (fileRef).
   */
  noOpen: boolean;
  noOpendir: boolean;
  /**
   * Set at INIT: the kernel's writeback cache is on. It then keeps its own
   * size and times of a regular file it holds over anything we answer, and
   * holds written pages until it writes them back (docs/computerd.md).
   */
  writeback: boolean;
  /**
   * FUSE paths whose pushed size and mtime are being taught to the kernel
   * through the mount (teach-kernel.ts): the SETATTRs that carry them
   * change nothing, since the store has them already.
   */
  readonly settling: Map<string, { size: number; mtime: number }>;
  /** What the kernel keeps of files and listings, dropped when relatime's next read must reach us. */
  readonly relatime: RelatimePages;
}

/**
 * What a request's file handle reaches in MountFs: the handle itself, or
 * for 0 (a file the kernel opened without OPEN, no-open) the node's inode.
 */
export function fileRef(context: KernelContext, nodeid: number, fh: number): number {
  return fh !== 0 ? fh : MountFs.inodeRef(context.nodes.inodeOf(nodeid));
}

/**
 * A file reference for a node whose every name is gone (unlinked while
 * open): one of its handles, else its inode (MountFs keeps such a file
 * while the kernel holds the node; ESTALE once nothing does).
 */
export function openRef(context: KernelContext, nodeid: number): number {
  return context.handles.get(nodeid)?.values().next().value ?? MountFs.inodeRef(context.nodes.inodeOf(nodeid));
}

/** A node's FUSE path; ESTALE when the kernel holds a node whose every name is gone. */
export function pathOf(context: KernelContext, nodeid: number): string {
  const path = context.nodes.path(nodeid);
  if (path === undefined) throw new ErrnoError(ESTALE, `node ${nodeid}`);
  return path;
}

export function childPath(context: KernelContext, parent: number, name: string): string {
  const dir = pathOf(context, parent);
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** An entry reply for `parent`/`name` at `at` in `out` (one lookup more), answering its size. */
export function entryReply(
  context: KernelContext,
  out: Buffer,
  at: number,
  parent: number,
  name: string,
  stat: FuseStat,
): number {
  const nodeid = context.nodes.nodeOf(stat.ino);
  context.nodes.remember(parent, name, nodeid);
  writeEntry(out, at, nodeid, stat, context.entryTimeout, context.attrTimeout);
  return ENTRY_OUT_SIZE;
}

/** Who asked: the request header's fsuid, fsgid and thread id. */
export function callerOf(request: Request): Caller {
  return { uid: request.uid, gid: request.gid, pid: request.pid };
}

const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_IXGRP = 0o010;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * HANDLE_KILLPRIV_V2: the kernel asks us to clear setuid, and setgid when
 * the group may execute (the VFS rule), as part of a chown, a truncate, a
 * write or an O_TRUNC open. `stat` is the node's attributes now. Answers the
 * attributes after it (`stat` itself when no bit was set, so a chown of a
 * plain file costs nothing more), undefined when they take a query of their
 * own, or the chmod's promise (a path that names a symlink: MountFs follows it).
 */
export function killSuidgid(
  context: KernelContext,
  nodeid: number,
  fh: number | undefined,
  stat: FuseStat,
): FuseStat | undefined | Promise<void> {
  const mode = stat.mode & 0o7777;
  const kept = mode & ~(S_ISUID | ((mode & S_IXGRP) !== 0 ? S_ISGID : 0));
  if (kept === mode || (stat.mode & S_IFMT) === S_IFLNK) return stat;
  const path = context.nodes.path(nodeid);
  if (path !== undefined) return context.fs.setMode(path, kept);
  // Every name is gone (unlinked while open): through its handle, or its inode.
  context.fs.fchmod(fh ?? openRef(context, nodeid), kept);
  return undefined;
}

/**
 * After a WRITE or an OPEN cleared setuid or setgid: the kernel keeps the
 * mode it cached (those replies carry no attributes), so its attributes are
 * dropped (FUSE_NOTIFY_INVAL_INODE with a negative offset: attributes only,
 * no pages) before the request answers, and the next stat asks again.
 */
export function forgetAttrs(context: KernelContext, nodeid: number): Promise<void> {
  const body = Buffer.alloc(24);
  writeU64(body, 0, nodeid);
  body.writeBigInt64LE(-1n, 8);
  return context.session.notify(Notify.INVAL_INODE, body, body.length).then(() => undefined);
}

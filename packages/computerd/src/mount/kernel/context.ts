/** What every op group shares: the filesystem, the node table, the session and the cache timeouts. */
import { constants } from "node:os";
import { ErrnoError } from "../errno.js";
import type { Caller } from "../inode-owners.js";
import type { FuseStat, MountFs } from "../mount-fs.js";
import type { NodeTable } from "./nodes.js";
import { ENTRY_OUT_SIZE, type Timeout, writeEntry } from "./protocol.js";
import type { Request, Session } from "./session.js";

export const ESTALE = -constants.errno.ESTALE;

export interface KernelContext {
  readonly fs: MountFs;
  readonly nodes: NodeTable;
  readonly session: Session;
  /** How long the kernel keeps a name, its absence, and attributes; pushes invalidate them explicitly. */
  readonly entryTimeout: Timeout;
  readonly negativeTimeout: Timeout;
  readonly attrTimeout: Timeout;
  /** Open file handles by node: a node whose every name is gone still answers GETATTR through one. */
  readonly handles: Map<number, Set<number>>;
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

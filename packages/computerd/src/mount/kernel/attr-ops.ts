/** GETATTR, SETATTR, STATFS, ACCESS: attributes by node (an inode lookup, no path walk) or by open handle. */
import { ENOENT, ErrnoError } from "../errno.js";
import { UNCHANGED } from "../inode-owners.js";
import type { FuseStat, TimeRequest, TimesRequest } from "../mount-fs.js";
import { callerOf, fileRef, type KernelContext, killSuidgid, openRef } from "./context.js";
import { ATTR_OUT_SIZE, Fattr, GETATTR_FH, Op, OUT_HEADER, readU64, writeAttr, writeU64 } from "./protocol.js";
import { ENOSYS, type Session } from "./session.js";

export function registerAttrOps(session: Session, context: KernelContext): void {
  const { fs, nodes } = context;

  /** By handle when the kernel names one (fstat of a file unlinked while open), else by inode. */
  const statOf = (nodeid: number, fh: number | undefined): FuseStat => {
    if (fh !== undefined && fh > 0) {
      try {
        return fs.fgetattr(fh);
      } catch {
        // A handle of another node (writeback) or gone: the inode answers.
      }
    }
    const stat = fs.inodeStat(nodes.inodeOf(nodeid));
    if (stat !== undefined) return stat;
    // Unlinked while open (fstat arrives without a handle): the open file still knows its size and time.
    const open = context.handles.get(nodeid)?.values().next().value;
    if (open !== undefined) return fs.fgetattr(open);
    throw new ErrnoError(ENOENT, `node ${nodeid}`);
  };

  const attrReply = (out: Buffer, stat: FuseStat): number => {
    const at = OUT_HEADER;
    writeU64(out, at, context.attrTimeout.seconds);
    out.writeUInt32LE(context.attrTimeout.nanos, at + 8);
    out.writeUInt32LE(0, at + 12);
    writeAttr(out, at + 16, stat);
    return ATTR_OUT_SIZE;
  };

  session.on(Op.GETATTR, "getattr", (request, input) => {
    const flags = input.readUInt32LE(40);
    const stat = statOf(request.nodeid, (flags & GETATTR_FH) !== 0 ? readU64(input, 48) : undefined);
    return attrReply(session.out, stat);
  });

  session.on(Op.SETATTR, "setattr", (request, input) => {
    const valid = input.readUInt32LE(40);
    const nodeid = request.nodeid;
    const path = nodes.path(nodeid);
    const settling = path === undefined ? undefined : context.settling.get(path);
    if (settling !== undefined && settles(valid, input, settling))
      return attrReply(session.out, statOf(nodeid, undefined));
    // A node whose every name is gone (unlinked while open) is reached through an open handle or its
    // inode: fchmod and fchown arrive without one, ftruncate with one (0 for a file opened without OPEN).
    const handle = (valid & Fattr.FH) !== 0 ? fileRef(context, nodeid, readU64(input, 48)) : undefined;
    const fh = handle ?? (path === undefined ? openRef(context, nodeid) : undefined);
    const size = readU64(input, 56);
    // fuse_setattr_in: atime at 72, mtime at 80, their nanoseconds at 96 and 100, mode 108, uid 116, gid 120.
    const times: TimesRequest = {};
    if ((valid & Fattr.ATIME) !== 0) times.atime = timeAt(input, valid & Fattr.ATIME_NOW, 72, 96);
    if ((valid & Fattr.MTIME) !== 0) times.mtime = timeAt(input, valid & Fattr.MTIME_NOW, 80, 100);
    const mode = input.readUInt32LE(108);
    const uid = (valid & Fattr.UID) !== 0 ? input.readUInt32LE(116) : UNCHANGED;
    const gid = (valid & Fattr.GID) !== 0 ? input.readUInt32LE(120) : UNCHANGED;
    const caller = callerOf(request);
    // The attributes the last change answered (from the row it read), else one query for the reply.
    let after: FuseStat | undefined;
    const finish = (): ((out: Buffer) => number) => (out) => attrReply(out, after ?? statOf(nodeid, fh));
    const rest = (): ((out: Buffer) => number) | Promise<(out: Buffer) => number> => {
      if ((valid & Fattr.SIZE) !== 0) {
        after = undefined;
        if (fh !== undefined) fs.ftruncate(fh, size);
        else fs.truncate(path as string, size);
      }
      if ((valid & (Fattr.ATIME | Fattr.MTIME)) !== 0) {
        after = undefined;
        if (fh !== undefined) fs.futimens(fh, times);
        else after = fs.setTimes(path as string, times);
      }
      // Last, from the attributes the changes left (no query when the file has no such bit).
      if ((valid & Fattr.KILL_SUIDGID) !== 0) {
        const killed = killSuidgid(context, nodeid, fh, after ?? statOf(nodeid, fh));
        if (killed instanceof Promise) return killed.then(finish);
        after = killed;
      }
      return finish();
    };
    // The owner first: a refused chown changes nothing, not even the mode the kernel sent with it
    // (the setuid and setgid bits a chown clears).
    if ((valid & (Fattr.UID | Fattr.GID)) !== 0) fs.chownInode(nodes.inodeOf(nodeid), uid, gid, caller);
    if ((valid & Fattr.MODE) !== 0) {
      if (path === undefined) fs.fchmod(fh as number, mode);
      else {
        const changed = fs.setMode(path, mode);
        if (changed instanceof Promise) return changed.then(rest);
        after = changed;
      }
    }
    const done = rest();
    return done instanceof Promise ? done : done(session.out);
  });

  session.on(Op.STATFS, "statfs", () => {
    const s = fs.statfs();
    const out = session.out;
    const at = OUT_HEADER;
    out.fill(0, at, at + 80);
    writeU64(out, at, s.blocks ?? 0);
    writeU64(out, at + 8, s.bfree ?? 0);
    writeU64(out, at + 16, s.bavail ?? 0);
    writeU64(out, at + 24, s.files ?? 0);
    writeU64(out, at + 32, s.ffree ?? 0);
    out.writeUInt32LE(s.bsize ?? 4096, at + 40);
    out.writeUInt32LE(s.namemax ?? 255, at + 44);
    out.writeUInt32LE(s.frsize ?? 4096, at + 48);
    return 80;
  });

  // The mount has default_permissions, so the kernel checks access itself from our modes and owners and
  // never sends ACCESS; should it, ENOSYS makes it stop asking.
  session.on(Op.ACCESS, "access", () => {
    throw new ErrnoError(ENOSYS, "access");
  });
}

/**
 * A SETATTR of a file being taught its pushed size and mtime: the truncate
 * to that size (with the kernel's own "now" for its times), then the touch
 * to that mtime.
 */
function settles(valid: number, input: Buffer, settling: { size: number; mtime: number }): boolean {
  if ((valid & Fattr.SIZE) !== 0) return readU64(input, 56) === settling.size;
  if ((valid & Fattr.MTIME) === 0 || (valid & Fattr.MTIME_NOW) !== 0) return false;
  return timeAt(input, 0, 80, 100) === BigInt(settling.mtime) * 1_000_000n;
}

/** A setattr time: "now" (FATTR_*_NOW), else the (u64 seconds, u32 nanoseconds) pair, signed as time_t is. */
function timeAt(input: Buffer, now: number, secondsAt: number, nanosAt: number): TimeRequest {
  if (now !== 0) return "now";
  return input.readBigInt64LE(secondsAt) * 1_000_000_000n + BigInt(input.readUInt32LE(nanosAt));
}

/**
 * Files: CREATE (entry and open handle in one reply), OPEN, READ (straight
 * into the reply buffer), WRITE (straight from the request buffer; MountFs
 * copies into its chunk buffers), FLUSH, RELEASE, FSYNC, COPY_FILE_RANGE.
 * Pages are kept across opens (KEEP_CACHE): a node is an inode, so every
 * name shares them, and a push drops them with INVAL_INODE, as does a
 * change that makes an atime due (relatime.ts: READ and WRITE tell it what
 * the kernel may keep).
 *
 * With no-open (context.noOpen) the first OPEN answers ENOSYS and the
 * kernel opens files by name without asking from then on: no OPEN, no
 * RELEASE, KEEP_CACHE implied, and their READ, WRITE, FSYNC and
 * COPY_FILE_RANGE carry handle 0, which reaches the file by its inode
 * (fileRef; MountFs, "Files by inode"). Once it has no-open the kernel
 * sends no RELEASE at all, not even for a file CREATE or TMPFILE opened
 * (measured on 6.18: no RELEASE for any file closed after the first OPEN's
 * ENOSYS, whenever it was created), so those answer handle 0 as well and
 * their files live by inode too (MountFs.releaseToInode). Until its first
 * OPEN the kernel does not know, and sends a RELEASE for every file a
 * CREATE opened (a fresh mount's `tar -x` opens nothing by name): the
 * first such RELEASE opens that file from a child process, whose OPEN gets
 * the ENOSYS (teachNoOpen).
 */
import { spawn } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { ErrnoError } from "../errno.js";
import { fallocate } from "../fallocate.js";
import type { FuseStat } from "../mount-fs.js";
import {
  callerOf,
  childPath,
  entryReply,
  fileRef,
  forgetAttrs,
  type KernelContext,
  killSuidgid,
  pathOf,
} from "./context.js";
import {
  ENTRY_OUT_SIZE,
  FOPEN_KEEP_CACHE,
  OPEN_KILL_SUIDGID,
  OPEN_OUT_SIZE,
  Op,
  OUT_HEADER,
  readName,
  readU64,
  WRITE_KILL_SUIDGID,
  writeEntry,
  writeU64,
} from "./protocol.js";
import { ENOSYS, type Session } from "./session.js";

const EINVAL = -constants.errno.EINVAL;
const EEXIST = -constants.errno.EEXIST;
const O_EXCL = fsConstants.O_EXCL;

/** A WRITE's reply body: the bytes written. */
function writeCount(out: Buffer, count: number): number {
  out.writeUInt32LE(count, OUT_HEADER);
  out.writeUInt32LE(0, OUT_HEADER + 4);
  return 8;
}

function writeOpen(out: Buffer, at: number, fh: number, flags: number): number {
  writeU64(out, at, fh);
  out.writeUInt32LE(flags, at + 8);
  out.writeUInt32LE(0, at + 12);
  return OPEN_OUT_SIZE;
}

/** Opens argv[1] read-only and non-blocking (a FIFO's open must not wait for a writer), then closes it. */
const OPEN_ONCE =
  "const fs = require('node:fs'); fs.closeSync(fs.openSync(process.argv[1], fs.constants.O_RDONLY | fs.constants.O_NONBLOCK));";

export function registerFileOps(session: Session, context: KernelContext): void {
  const { fs, nodes } = context;
  const readTarget = session.out.subarray(OUT_HEADER);
  /** The kernel answered an OPEN's ENOSYS (no RELEASE comes from then on), or one is on its way. */
  let taught = false;
  let teaching = false;
  const teachNoOpen = (nodeid: number): void => {
    const path = nodes.path(nodeid);
    if (taught || teaching || path === undefined) return;
    teaching = true;
    // Never on this loop, which must answer the OPEN, and never on a thread of this process: a daemon
    // killed while its own OPEN waits for the answer would hold that thread in the kernel (an
    // uninterruptible FUSE wait) and so its /dev/fuse open, which alone could end the wait. A child's
    // wait ends when the daemon's exit aborts the connection. A file gone or refused meanwhile
    // (another user's 0600 file, the daemon not root) waits for the next RELEASE.
    const child = spawn(process.execPath, ["-e", OPEN_ONCE, join(context.mountPoint, path)], {
      stdio: "ignore",
      timeout: 30_000,
    });
    child.once("error", () => undefined);
    child.once("close", () => {
      teaching = false;
    });
  };
  const writeSource = session.input.subarray(80);
  /** The handle a CREATE or TMPFILE answers: 0 with no-open (the file is served by inode from now on). */
  const opened = (nodeid: number, fh: number): number => {
    if (context.noOpen) {
      fs.releaseToInode(fh);
      return 0;
    }
    let handles = context.handles.get(nodeid);
    if (handles === undefined) {
      handles = new Set();
      context.handles.set(nodeid, handles);
    }
    handles.add(fh);
    return fh;
  };

  session.on(Op.CREATE, "create", (request, input) => {
    const flags = input.readUInt32LE(40);
    const mode = input.readUInt32LE(44);
    const [name] = readName(input, 56, request.length);
    const parent = request.nodeid;
    const path = childPath(context, parent, name);
    // The kernel looked the name up first; one that exists now was made meanwhile.
    if ((flags & O_EXCL) !== 0 && nodes.child(parent, name) !== undefined) throw new ErrnoError(EEXIST, path);
    // The attributes come from the row the create wrote: no query for the reply.
    const reply =
      ({ fd, stat }: { fd: number; stat: FuseStat }) =>
      (out: Buffer) => {
        const fh = opened(nodes.nodeOf(stat.ino), fd);
        const length = entryReply(context, out, OUT_HEADER, parent, name, stat);
        return length + writeOpen(out, OUT_HEADER + ENTRY_OUT_SIZE, fh, FOPEN_KEEP_CACHE);
      };
    const made = fs.createFile(path, mode, callerOf(request));
    return made instanceof Promise ? made.then(reply) : reply(made);
  });

  // O_TMPFILE: an open file with no name (MountFs.tmpfile); its node has no name either until linkat.
  session.on(Op.TMPFILE, "tmpfile", (request, input) => {
    const mode = input.readUInt32LE(44);
    const fd = fs.tmpfile(pathOf(context, request.nodeid), mode, callerOf(request));
    const stat = fs.fgetattr(fd);
    const nodeid = stat.ino;
    nodes.rememberNameless(nodeid);
    const fh = opened(nodeid, fd);
    const out = session.out;
    writeEntry(out, OUT_HEADER, nodeid, stat, context.entryTimeout, context.attrTimeout);
    return ENTRY_OUT_SIZE + writeOpen(out, OUT_HEADER + ENTRY_OUT_SIZE, fh, FOPEN_KEEP_CACHE);
  });

  session.on(Op.OPEN, "open", (request, input) => {
    if (context.noOpen) {
      taught = true;
      throw new ErrnoError(ENOSYS, "open");
    }
    const fd = fs.open(pathOf(context, request.nodeid), input.readUInt32LE(40));
    opened(request.nodeid, fd);
    const reply = (out: Buffer) => writeOpen(out, OUT_HEADER, fd, FOPEN_KEEP_CACHE);
    // An O_TRUNC open by a caller without CAP_FSETID (HANDLE_KILLPRIV_V2).
    if ((input.readUInt32LE(44) & OPEN_KILL_SUIDGID) !== 0) {
      const stat = fs.fgetattr(fd);
      const killed = killSuidgid(context, request.nodeid, fd, stat);
      if (killed !== stat)
        return Promise.resolve(killed).then(() => forgetAttrs(context, request.nodeid).then(() => reply));
    }
    return reply(session.out);
  });

  session.on(Op.READ, "read", (request, input) => {
    const fh = fileRef(context, request.nodeid, readU64(input, 40));
    const offset = readU64(input, 48);
    const size = input.readUInt32LE(56);
    // First: the read itself may find the atime still due (an mtime in the future) and drop what it keeps.
    context.relatime.read(request.nodeid);
    return fs.read(fh, readTarget, size, offset);
  });

  session.on(Op.WRITE, "write", (request, input) => {
    const fh = fileRef(context, request.nodeid, readU64(input, 40));
    const offset = readU64(input, 48);
    const size = input.readUInt32LE(56);
    // Data at byte 80 of the request: the session's own buffer, or an io_uring entry's.
    const written = fs.write(fh, input === session.input ? writeSource : input.subarray(80), size, offset);
    context.relatime.wrote(request.nodeid, offset, written);
    // A write by a caller without CAP_FSETID (HANDLE_KILLPRIV_V2): one query, and a chmod when a bit is set.
    if ((input.readUInt32LE(60) & WRITE_KILL_SUIDGID) !== 0) {
      const stat = fs.fgetattr(fh);
      const killed = killSuidgid(context, request.nodeid, fh, stat);
      if (killed !== stat) {
        const reply = (out: Buffer) => writeCount(out, written);
        return Promise.resolve(killed).then(() => forgetAttrs(context, request.nodeid).then(() => reply));
      }
    }
    return writeCount(session.out, written);
  });

  // Nothing to do at close(2): ENOSYS once and the kernel stops sending FLUSH, a round trip per close.
  // Unless the store outlives the daemon: then close(2) commits the file (no-open sends no RELEASE).
  session.on(Op.FLUSH, "flush", (request, input) => {
    if (!fs.persists) throw new ErrnoError(ENOSYS, "flush");
    fs.closed(fileRef(context, request.nodeid, readU64(input, 40)));
    return 0;
  });

  session.on(Op.RELEASE, "release", (request, input) => {
    const fh = readU64(input, 40);
    // A CREATE's before the kernel knew it had no-open: the file lives by inode.
    if (fh === 0) {
      teachNoOpen(request.nodeid);
      return 0;
    }
    const handles = context.handles.get(request.nodeid);
    handles?.delete(fh);
    if (handles?.size === 0) context.handles.delete(request.nodeid);
    fs.release(fh);
    return 0;
  });

  session.on(Op.FSYNC, "fsync", (request, input) => {
    fs.fsync(fileRef(context, request.nodeid, readU64(input, 40)));
    return 0;
  });

  // fuse_fallocate_in: fh 40, offset 48, length 56, mode 64 (fallocate.ts says what each mode does here).
  session.on(Op.FALLOCATE, "fallocate", (request, input) => {
    const ref = fileRef(context, request.nodeid, readU64(input, 40));
    fallocate(fs, ref, input.readUInt32LE(64), readU64(input, 48), readU64(input, 56));
    return 0;
  });

  // cp and fs.copyFile: whole stored chunks are shared by hash; no bytes cross the kernel.
  // fuse_copy_file_range_in: fh_in 40, off_in 48, nodeid_out 56, fh_out 64, off_out 72, len 80, flags 88.
  session.on(Op.COPY_FILE_RANGE, "copy_file_range", (request, input) => {
    const flags = readU64(input, 88);
    if (flags !== 0) throw new ErrnoError(EINVAL, "copy_file_range flags");
    const copied = fs.copyRange(
      fileRef(context, request.nodeid, readU64(input, 40)),
      readU64(input, 48),
      fileRef(context, readU64(input, 56), readU64(input, 64)),
      readU64(input, 72),
      Math.min(readU64(input, 80), 0xfffff000),
    );
    const out = session.out;
    out.writeUInt32LE(copied, OUT_HEADER);
    out.writeUInt32LE(0, OUT_HEADER + 4);
    return 8;
  });
}

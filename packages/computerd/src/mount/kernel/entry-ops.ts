/**
 * Names: LOOKUP (a miss is cached as a negative entry), FORGET and
 * BATCH_FORGET, MKDIR, MKNOD (regular files, FIFOs, sockets, devices), SYMLINK,
 * LINK, UNLINK, RMDIR, RENAME and RENAME2, READLINK. Each creation answers
 * the new node's entry with its attributes, so the kernel needs no LOOKUP
 * after it, and belongs to the request's caller (its uid and gid).
 */
import { constants } from "node:os";
import { ErrnoError } from "../errno.js";
import { callerOf, childPath, entryReply, type KernelContext, openRef, pathOf } from "./context.js";
import {
  ENTRY_OUT_SIZE,
  Op,
  OUT_HEADER,
  RENAME_EXCHANGE,
  RENAME_NOREPLACE,
  readName,
  readU64,
  writeEntry,
} from "./protocol.js";
import type { Session } from "./session.js";

const EEXIST = -constants.errno.EEXIST;
const EINVAL = -constants.errno.EINVAL;

export function registerEntryOps(session: Session, context: KernelContext): void {
  const { fs, nodes } = context;

  session.on(Op.LOOKUP, "lookup", (request, input) => {
    const [name] = readName(input, 40, request.length);
    const path = childPath(context, request.nodeid, name);
    const stat = fs.statIfExists(path);
    if (stat === undefined) {
      // Nodeid 0: "no such name", cached for the negative timeout (a create replaces it in the kernel).
      writeEntry(session.out, OUT_HEADER, 0, undefined, context.negativeTimeout, context.attrTimeout);
      return ENTRY_OUT_SIZE;
    }
    return entryReply(context, session.out, OUT_HEADER, request.nodeid, name, stat);
  });

  session.on(Op.FORGET, "forget", (request, input) => {
    nodes.forget(request.nodeid, readU64(input, 40));
    return undefined;
  });

  session.on(Op.BATCH_FORGET, "batch_forget", (_request, input) => {
    const count = input.readUInt32LE(40);
    for (let i = 0, at = 48; i < count; i++, at += 16) nodes.forget(readU64(input, at), readU64(input, at + 8));
    return undefined;
  });

  session.on(Op.MKDIR, "mkdir", (request, input) => {
    const mode = input.readUInt32LE(40);
    const [name] = readName(input, 48, request.length);
    const parent = request.nodeid;
    const path = childPath(context, parent, name);
    const made = fs.makeDir(path, mode, callerOf(request));
    if (!(made instanceof Promise)) return entryReply(context, session.out, OUT_HEADER, parent, name, made);
    return made.then((stat) => (out: Buffer) => entryReply(context, out, OUT_HEADER, parent, name, stat));
  });

  session.on(Op.MKNOD, "mknod", (request, input) => {
    const mode = input.readUInt32LE(40);
    const [name] = readName(input, 56, request.length);
    const parent = request.nodeid;
    const path = childPath(context, parent, name);
    if (nodes.child(parent, name) !== undefined) throw new ErrnoError(EEXIST, path);
    // fuse_mknod_in: mode 40, rdev 44, umask 48. FIFOs, sockets and device nodes live in the daemon's memory.
    const rdev = input.readUInt32LE(44);
    return Promise.resolve(fs.mknod(path, mode, callerOf(request), rdev)).then(
      (stat) => (out: Buffer) => entryReply(context, out, OUT_HEADER, parent, name, stat),
    );
  });

  session.on(Op.SYMLINK, "symlink", (request, input) => {
    const [name, next] = readName(input, 40, request.length);
    const [target] = readName(input, next, request.length);
    const parent = request.nodeid;
    const path = childPath(context, parent, name);
    return fs
      .symlink(target, path, callerOf(request))
      .then(() => (out: Buffer) => entryReply(context, out, OUT_HEADER, parent, name, fs.getattr(path)));
  });

  session.on(Op.LINK, "link", (request, input) => {
    const old = readU64(input, 40);
    const [name] = readName(input, 48, request.length);
    const parent = request.nodeid;
    const path = childPath(context, parent, name);
    // linkat(AT_EMPTY_PATH) of an O_TMPFILE file: a node with no name, reached through its open handle or inode.
    const handle = nodes.path(old) === undefined ? openRef(context, old) : undefined;
    if (handle !== undefined) {
      nodes.alias(old, fs.linkOpen(handle, path));
      return entryReply(context, session.out, OUT_HEADER, parent, name, fs.getattr(path));
    }
    const existing = pathOf(context, old);
    return fs
      .link(existing, path)
      .then(() => (out: Buffer) => entryReply(context, out, OUT_HEADER, parent, name, fs.getattr(path)));
  });

  session.on(Op.UNLINK, "unlink", (request, input) => {
    const [name] = readName(input, 40, request.length);
    const parent = request.nodeid;
    return fs.unlink(childPath(context, parent, name)).then(() => {
      nodes.removed(parent, name);
      return 0;
    });
  });

  session.on(Op.RMDIR, "rmdir", (request, input) => {
    const [name] = readName(input, 40, request.length);
    const parent = request.nodeid;
    return fs.rmdir(childPath(context, parent, name)).then(() => {
      nodes.removed(parent, name);
      return 0;
    });
  });

  const rename = (parent: number, newParent: number, flags: number, input: Buffer, at: number, end: number) => {
    const [name, next] = readName(input, at, end);
    const [newName] = readName(input, next, end);
    // Exchanging two names is not in MountFs; the caller sees EINVAL (as on filesystems without it).
    if ((flags & RENAME_EXCHANGE) !== 0 || (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) !== 0) {
      throw new ErrnoError(EINVAL, "rename flags");
    }
    const from = childPath(context, parent, name);
    const to = childPath(context, newParent, newName);
    if ((flags & RENAME_NOREPLACE) !== 0) {
      let exists = true;
      try {
        fs.getattr(to);
      } catch {
        exists = false;
      }
      if (exists) throw new ErrnoError(EEXIST, to);
    }
    return fs.rename(from, to).then(() => {
      nodes.renamed(parent, name, newParent, newName);
      return 0;
    });
  };

  session.on(Op.RENAME, "rename", (request, input) =>
    rename(request.nodeid, readU64(input, 40), 0, input, 48, request.length),
  );
  session.on(Op.RENAME2, "rename", (request, input) =>
    rename(request.nodeid, readU64(input, 40), input.readUInt32LE(48), input, 56, request.length),
  );

  // The kernel keeps the target (CACHE_SYMLINKS) and follows it without asking; relatime.ts drops it when the
  // link's atime falls due, so the next follow reaches us.
  session.on(Op.READLINK, "readlink", (request) => {
    context.relatime.read(request.nodeid);
    return fs
      .readlink(pathOf(context, request.nodeid))
      .then((target) => (out: Buffer) => out.write(target, OUT_HEADER));
  });
}

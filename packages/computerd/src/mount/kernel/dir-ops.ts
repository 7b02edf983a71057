/**
 * Directories: OPENDIR takes a snapshot handle, READDIRPLUS packs entries
 * with their attributes from it (each entry after `.` and `..` counts as a
 * lookup, so the kernel caches it as if looked up), READDIR the same
 * without, RELEASEDIR drops the snapshot. Offsets are positions in the
 * snapshot plus one (0 means "from the start").
 */
import type { FuseStat } from "../mount-fs.js";
import { type KernelContext, pathOf } from "./context.js";
import {
  DIRENT_SIZE,
  DIRENTPLUS_SIZE,
  direntType,
  ENTRY_OUT_SIZE,
  OPEN_OUT_SIZE,
  Op,
  OUT_HEADER,
  readU64,
  writeEntry,
  writeU64,
} from "./protocol.js";
import type { Session } from "./session.js";

interface Listing {
  names: string[];
  stats: FuseStat[];
}

const align8 = (n: number): number => (n + 7) & ~7;

export function registerDirOps(session: Session, context: KernelContext): void {
  const { fs, nodes } = context;
  const open = new Map<number, Listing | undefined>();
  let nextHandle = 1;

  session.on(Op.OPENDIR, "opendir", (request) => {
    pathOf(context, request.nodeid);
    const fh = nextHandle++;
    open.set(fh, undefined);
    const out = session.out;
    writeU64(out, OUT_HEADER, fh);
    out.fill(0, OUT_HEADER + 8, OUT_HEADER + OPEN_OUT_SIZE);
    return OPEN_OUT_SIZE;
  });

  session.on(Op.RELEASEDIR, "releasedir", (_request, input) => {
    open.delete(readU64(input, 40));
    return 0;
  });

  const listing = (nodeid: number, fh: number, offset: number): Listing => {
    let list = open.get(fh);
    if (list === undefined || offset === 0) {
      list = fs.readdirPlus(pathOf(context, nodeid));
      open.set(fh, list);
    }
    return list;
  };

  const readdir = (plus: boolean) => (request: { nodeid: number }, input: Buffer) => {
    const fh = readU64(input, 40);
    const offset = readU64(input, 48);
    const size = input.readUInt32LE(56);
    const { names, stats } = listing(request.nodeid, fh, offset);
    const out = session.out;
    const head = plus ? DIRENTPLUS_SIZE : DIRENT_SIZE;
    let at = OUT_HEADER;
    const end = OUT_HEADER + size;
    for (let i = offset; i < names.length; i++) {
      const name = names[i] as string;
      const stat = stats[i] as FuseStat;
      const nameLength = Buffer.byteLength(name);
      const record = align8(head + nameLength);
      if (at + record > end) break;
      let dirent = at;
      if (plus) {
        if (i < 2) {
          // `.` and `..`: name only, never counted as lookups.
          writeEntry(out, at, 0, undefined, { seconds: 0, nanos: 0 }, context.attrTimeout);
        } else {
          const nodeid = nodes.nodeOf(stat.ino);
          nodes.remember(request.nodeid, name, nodeid);
          writeEntry(out, at, nodeid, stat, context.entryTimeout, context.attrTimeout);
        }
        dirent = at + ENTRY_OUT_SIZE;
      }
      writeU64(out, dirent, stat.ino);
      writeU64(out, dirent + 8, i + 1);
      out.writeUInt32LE(nameLength, dirent + 16);
      out.writeUInt32LE(direntType(stat.mode), dirent + 20);
      out.write(name, dirent + 24, "utf8");
      out.fill(0, dirent + 24 + nameLength, at + record);
      at += record;
    }
    return at - OUT_HEADER;
  };

  session.on(Op.READDIRPLUS, "readdirplus", readdir(true));
  session.on(Op.READDIR, "readdir", readdir(false));
  session.on(Op.FSYNCDIR, "fsyncdir", () => 0);
}

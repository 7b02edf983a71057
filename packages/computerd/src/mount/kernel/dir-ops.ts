/**
 * Directories: OPENDIR takes a snapshot handle, READDIRPLUS packs entries
 * with their attributes from it (each entry after `.` and `..` counts as a
 * lookup, so the kernel caches it as if looked up), READDIR the same
 * without, RELEASEDIR drops the snapshot. Offsets are positions in the
 * snapshot plus one (0 means "from the start").
 *
 * With no-opendir (context.noOpendir) the first OPENDIR answers ENOSYS:
 * the kernel then opens directories without asking (no OPENDIR, no
 * RELEASEDIR), listings come with handle 0 and offsets that hold without a
 * snapshot (listing.ts), and the kernel may keep a listing in its own cache
 * (CACHE_DIR is implied): its own entry changes reset that cache, and a
 * push drops it with INVAL_INODE of the directory (kernel-driver.ts).
 */
import { ErrnoError } from "../errno.js";
import { type KernelContext, pathOf } from "./context.js";
import { type ListingPage, Listings } from "./listing.js";
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
import { ENOSYS, type Session } from "./session.js";

type Snapshot = ListingPage["listing"];

const align8 = (n: number): number => (n + 7) & ~7;

export function registerDirOps(session: Session, context: KernelContext): void {
  const { fs, nodes } = context;
  const open = new Map<number, Snapshot | undefined>();
  const listings = new Listings(fs);
  let nextHandle = 1;

  session.on(Op.OPENDIR, "opendir", (request) => {
    if (context.noOpendir) throw new ErrnoError(ENOSYS, "opendir");
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

  /** An OPENDIR handle's snapshot, taken anew at offset 0; offsets are positions in it plus one. */
  const snapshotPage = (nodeid: number, fh: number, offset: number): ListingPage => {
    let listing = open.get(fh);
    if (listing === undefined || offset === 0) {
      const { names, stats } = fs.readdirPlus(pathOf(context, nodeid));
      listing = { names, stats, offsets: names.map((_, i) => i + 1), entryVersion: 0, attrVersion: 0 };
      open.set(fh, listing);
    }
    const { stats } = listing;
    return { listing, from: offset, stat: (i) => stats[i] };
  };

  const readdir = (plus: boolean) => (request: { nodeid: number }, input: Buffer) => {
    const fh = readU64(input, 40);
    const offset = readU64(input, 48);
    const size = input.readUInt32LE(56);
    // Without a handle the kernel may keep the listing (CACHE_DIR); relatime's next listing must still reach us.
    // Before the listing, which may find the atime still due (an mtime in the future) and drop it again.
    if (fh === 0 && offset === 0) context.relatime.listed(request.nodeid);
    const page =
      fh === 0
        ? listings.page(nodes.inodeOf(request.nodeid), pathOf(context, request.nodeid), offset)
        : snapshotPage(request.nodeid, fh, offset);
    const { names, offsets } = page.listing;
    const out = session.out;
    const head = plus ? DIRENTPLUS_SIZE : DIRENT_SIZE;
    let at = OUT_HEADER;
    const end = OUT_HEADER + size;
    for (let i = page.from; i < names.length; i++) {
      const name = names[i] as string;
      const nameLength = Buffer.byteLength(name);
      const record = align8(head + nameLength);
      if (at + record > end) break;
      const stat = page.stat(i);
      if (stat === undefined) continue;
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
      writeU64(out, dirent + 8, offsets[i] as number);
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
  session.on(Op.FSYNCDIR, "fsyncdir", () => {
    fs.fsyncdir();
    return 0;
  });
}

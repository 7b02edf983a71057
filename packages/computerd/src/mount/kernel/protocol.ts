/**
 * The kernel's FUSE protocol as computerd speaks it (minor 43; facts in
 * `docs/computerd.md`, "kernel"): opcodes, capability bits, and the
 * few encoders every op group shares. Little-endian fixed offsets; 64-bit
 * fields are written as two 32-bit halves (our values stay below 2^53).
 */

export const FUSE_KERNEL_VERSION = 7;
export const FUSE_KERNEL_MINOR_VERSION = 43;
export const ROOT_ID = 1;
export const IN_HEADER = 40;
export const OUT_HEADER = 16;

export const Op = {
  LOOKUP: 1,
  FORGET: 2,
  GETATTR: 3,
  SETATTR: 4,
  READLINK: 5,
  SYMLINK: 6,
  MKNOD: 8,
  MKDIR: 9,
  UNLINK: 10,
  RMDIR: 11,
  RENAME: 12,
  LINK: 13,
  OPEN: 14,
  READ: 15,
  WRITE: 16,
  STATFS: 17,
  RELEASE: 18,
  FSYNC: 20,
  FLUSH: 25,
  INIT: 26,
  OPENDIR: 27,
  READDIR: 28,
  RELEASEDIR: 29,
  FSYNCDIR: 30,
  ACCESS: 34,
  CREATE: 35,
  INTERRUPT: 36,
  DESTROY: 38,
  BATCH_FORGET: 42,
  FALLOCATE: 43,
  READDIRPLUS: 44,
  RENAME2: 45,
  COPY_FILE_RANGE: 47,
  TMPFILE: 51,
} as const;

export const Init = {
  ASYNC_READ: 1 << 0,
  ATOMIC_O_TRUNC: 1 << 3,
  BIG_WRITES: 1 << 5,
  DO_READDIRPLUS: 1 << 13,
  ASYNC_DIO: 1 << 15,
  WRITEBACK_CACHE: 1 << 16,
  PARALLEL_DIROPS: 1 << 18,
  /** Info only: the kernel takes ENOSYS to OPEN as "never ask again" (no-open). */
  NO_OPEN_SUPPORT: 1 << 17,
  MAX_PAGES: 1 << 22,
  CACHE_SYMLINKS: 1 << 23,
  /** Info only: the same for OPENDIR. */
  NO_OPENDIR_SUPPORT: 1 << 24,
  HANDLE_KILLPRIV_V2: 1 << 28,
  /** flags2 is valid, both ways. */
  INIT_EXT: 1 << 30,
} as const;

/** Capability bits 32–63, as `flags2` carries them (shifted down by 32). */
export const Init2 = {
  OVER_IO_URING: 1 << 9,
} as const;

export const Fattr = {
  MODE: 0x1,
  UID: 0x2,
  GID: 0x4,
  SIZE: 0x8,
  ATIME: 0x10,
  MTIME: 0x20,
  FH: 0x40,
  ATIME_NOW: 0x80,
  MTIME_NOW: 0x100,
  KILL_SUIDGID: 0x800,
} as const;

/** HANDLE_KILLPRIV_V2: a WRITE (write_flags) or an OPEN with O_TRUNC (open_flags) by a caller without CAP_FSETID. */
export const WRITE_KILL_SUIDGID = 0x4;
export const OPEN_KILL_SUIDGID = 0x1;

export const FOPEN_KEEP_CACHE = 0x2;
export const GETATTR_FH = 0x1;
export const RENAME_NOREPLACE = 1;
export const RENAME_EXCHANGE = 2;

/** DELETE: an INVAL_ENTRY that also drops the node's link count to 0 (the kernel then FORGETs it at its last close). */
export const Notify = { INVAL_INODE: 2, INVAL_ENTRY: 3, DELETE: 6 } as const;

/** A notification's header at `at` in `out`: its whole length, its code where a reply has the error, unique 0. */
export function writeNotifyHeader(out: Buffer, at: number, code: number, bodyLength: number): void {
  out.writeUInt32LE(OUT_HEADER + bodyLength, at);
  out.writeInt32LE(code, at + 4);
  out.fill(0, at + 8, at + OUT_HEADER);
}

export const FUSE_ATTR_SIZE = 88;
export const ENTRY_OUT_SIZE = 128;
export const ATTR_OUT_SIZE = 104;
export const OPEN_OUT_SIZE = 16;
export const DIRENT_SIZE = 24;
export const DIRENTPLUS_SIZE = 152;

const TWO_32 = 4_294_967_296;

export function readU64(buffer: Buffer, at: number): number {
  return buffer.readUInt32LE(at) + buffer.readUInt32LE(at + 4) * TWO_32;
}

export function writeU64(buffer: Buffer, at: number, value: number): void {
  if (value < 0) {
    buffer.writeBigInt64LE(BigInt(Math.trunc(value)), at);
    return;
  }
  buffer.writeUInt32LE(value >>> 0, at);
  buffer.writeUInt32LE(Math.floor(value / TWO_32) >>> 0, at + 4);
}

/** A NUL-terminated name starting at `at`, and where the byte after its NUL is. */
export function readName(buffer: Buffer, at: number, end: number): [string, number] {
  let nul = buffer.indexOf(0, at);
  if (nul === -1 || nul > end) nul = end;
  return [buffer.toString("utf8", at, nul), nul + 1];
}

/** The attributes a node reports, in the units MountFs keeps (times in ms, with their second's nanoseconds when known). */
export interface NodeAttr {
  ino: number;
  size: number;
  blocks: number;
  atime: number;
  mtime: number;
  ctime: number;
  atimeNsec?: number;
  mtimeNsec?: number;
  ctimeNsec?: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  blksize: number;
  /** A device node's number; 0 when absent. */
  rdev?: number;
}

/** fuse_attr (88 bytes) at `at`. */
export function writeAttr(buffer: Buffer, at: number, attr: NodeAttr): void {
  writeU64(buffer, at, attr.ino);
  writeU64(buffer, at + 8, attr.size);
  writeU64(buffer, at + 16, attr.blocks);
  writeTime(buffer, at + 24, at + 48, attr.atime, attr.atimeNsec);
  writeTime(buffer, at + 32, at + 52, attr.mtime, attr.mtimeNsec);
  writeTime(buffer, at + 40, at + 56, attr.ctime, attr.ctimeNsec);
  buffer.writeUInt32LE(attr.mode >>> 0, at + 60);
  buffer.writeUInt32LE(attr.nlink >>> 0, at + 64);
  buffer.writeUInt32LE(attr.uid >>> 0, at + 68);
  buffer.writeUInt32LE(attr.gid >>> 0, at + 72);
  buffer.writeUInt32LE((attr.rdev ?? 0) >>> 0, at + 76);
  buffer.writeUInt32LE(attr.blksize >>> 0, at + 80);
  buffer.writeUInt32LE(0, at + 84);
}

function writeTime(buffer: Buffer, secondsAt: number, nanosAt: number, ms: number, nsec?: number): void {
  const seconds = Math.floor(ms / 1000);
  writeU64(buffer, secondsAt, seconds);
  buffer.writeUInt32LE(nsec ?? Math.round((ms - seconds * 1000) * 1_000_000) % 1_000_000_000, nanosAt);
}

/** A timeout in seconds as the (u64 seconds, u32 nanoseconds) pair. */
export interface Timeout {
  seconds: number;
  nanos: number;
}

export function timeout(seconds: number): Timeout {
  const whole = Math.floor(seconds);
  return { seconds: whole, nanos: Math.round((seconds - whole) * 1e9) };
}

/** fuse_entry_out (128 bytes) at `at`; nodeid 0 is a negative entry. */
export function writeEntry(
  buffer: Buffer,
  at: number,
  nodeid: number,
  attr: NodeAttr | undefined,
  entry: Timeout,
  attrValid: Timeout,
): void {
  writeU64(buffer, at, nodeid);
  writeU64(buffer, at + 8, 0);
  writeU64(buffer, at + 16, entry.seconds);
  writeU64(buffer, at + 24, attr === undefined ? 0 : attrValid.seconds);
  buffer.writeUInt32LE(entry.nanos, at + 32);
  buffer.writeUInt32LE(attr === undefined ? 0 : attrValid.nanos, at + 36);
  if (attr === undefined) buffer.fill(0, at + 40, at + ENTRY_OUT_SIZE);
  else writeAttr(buffer, at + 40, attr);
}

/** d_type of a mode. */
export function direntType(mode: number): number {
  return (mode & 0o170000) >> 12;
}

/**
 * fallocate(2) over MountFs, for every driver. The chunk store allocates
 * nothing ahead (a chunk is stored when its bytes are), so what a mode
 * promises reduces to sizes and zeros:
 * - 0: the file grows to offset + length if shorter (the new bytes read as
 *   zeros, as after a truncate up); space is not reserved, so a later write
 *   can still fail with ENOSPC, as on any filesystem that compresses or dedups.
 * - KEEP_SIZE: nothing to do.
 * - PUNCH_HOLE | KEEP_SIZE: the range within the file reads as zeros. The
 *   store has no holes; zeros are stored, and a whole zero chunk is one blob
 *   shared by every file that has one.
 * - ZERO_RANGE (with or without KEEP_SIZE): the range reads as zeros; the
 *   file grows to its end unless KEEP_SIZE.
 * Anything else (COLLAPSE_RANGE, INSERT_RANGE, UNSHARE_RANGE, an unknown
 * bit) is EOPNOTSUPP, as ext4 answers what it cannot do.
 */
import { constants } from "node:os";
import { EINVAL, ErrnoError } from "./errno.js";

export const FALLOC_FL_KEEP_SIZE = 0x01;
export const FALLOC_FL_PUNCH_HOLE = 0x02;
export const FALLOC_FL_ZERO_RANGE = 0x10;

const EOPNOTSUPP = -constants.errno.EOPNOTSUPP;
const EFBIG = -constants.errno.EFBIG;
/** The largest offset + length Linux accepts (MAX_LFS_FILESIZE on 64-bit); also what a JS number holds exactly. */
const MAX_END = Number.MAX_SAFE_INTEGER;
/** Zeros are written in pieces of this size (one chunk of the store). */
const PIECE = 524_288;

/** What fallocate needs of a MountFs: a handle's size, and writing and truncating through it. */
export interface FallocateTarget {
  fgetattr(fd: number): { size: number };
  ftruncate(fd: number, size: number): void;
  write(fd: number, buffer: Buffer, length: number, position: number): number;
}

export function fallocate(fs: FallocateTarget, fd: number, mode: number, offset: number, length: number): void {
  if (offset < 0 || length <= 0) throw new ErrnoError(EINVAL, "fallocate");
  if (offset + length > MAX_END) throw new ErrnoError(EFBIG, "fallocate");
  const keepSize = (mode & FALLOC_FL_KEEP_SIZE) !== 0;
  const end = offset + length;
  const size = fs.fgetattr(fd).size;
  if (mode === 0 || mode === FALLOC_FL_KEEP_SIZE) {
    if (!keepSize && end > size) fs.ftruncate(fd, end);
    return;
  }
  if (mode === (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)) {
    writeZeros(fs, fd, offset, Math.min(end, size));
    return;
  }
  // PUNCH_HOLE without KEEP_SIZE is EOPNOTSUPP on Linux too.
  if (mode === FALLOC_FL_ZERO_RANGE || mode === (FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE)) {
    writeZeros(fs, fd, offset, keepSize ? Math.min(end, size) : end);
    return;
  }
  throw new ErrnoError(EOPNOTSUPP, `fallocate mode ${mode}`);
}

function writeZeros(fs: FallocateTarget, fd: number, from: number, to: number): void {
  if (to <= from) return;
  const zeros = Buffer.alloc(Math.min(PIECE, to - from));
  for (let at = from; at < to; ) {
    // Aligned pieces: each whole chunk of the range is one zero chunk, stored once.
    const length = Math.min(to - at, PIECE - (at % PIECE));
    at += fs.write(fd, zeros, length, at);
  }
}

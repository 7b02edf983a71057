/**
 * INIT: what computerd asks of the kernel. Minor 43 (a 6.18 kernel offers
 * 45 and uses ours). Asked for, when offered:
 * - MAX_PAGES with max_write: 1 MiB WRITE and READ requests (256 pages);
 * - DO_READDIRPLUS: listings carry attributes, so `find`, `ls -l` and git
 *   need no LOOKUP per entry;
 * - PARALLEL_DIROPS: lookups and listings in one directory run together;
 * - ATOMIC_O_TRUNC: `open(O_TRUNC)` is one OPEN, not OPEN plus SETATTR;
 *   only with no-open off: a kernel that opens without asking (no-open)
 *   and was told OPEN truncates would truncate nothing (it sends neither);
 * - ASYNC_READ, BIG_WRITES, ASYNC_DIO, CACHE_SYMLINKS;
 * - HANDLE_KILLPRIV_V2: the kernel says when setuid and setgid go (a
 *   chown, a truncate, a write or an O_TRUNC open by a caller without
 *   CAP_FSETID) and we clear them (context.ts, killSuidgid), so a chown
 *   takes no GETATTR first (tar chowns every file it makes);
 * - WRITEBACK_CACHE only when configured (the kernel then keeps its own
 *   sizes; see docs/computerd.md);
 * - OVER_IO_URING (flags2, with INIT_EXT) unless COMPUTERD_FUSE_URING is
 *   off: requests may then come through ring entries (uring.ts) once they
 *   are registered, which the kernel accepts only after this reply.
 * No-open (`InitOptions.noOpen`, when the kernel offers NO_OPEN_SUPPORT
 * and NO_OPENDIR_SUPPORT): nothing is asked for; the first OPEN and OPENDIR
 * answer ENOSYS (file-ops.ts, dir-ops.ts) and the kernel stops sending them
 * and their RELEASEs.
 * Not asked: AUTO_INVAL_DATA (our millisecond mtimes would drop pages after
 * every write; pushes invalidate explicitly), POSIX/FLOCK locks (the
 * kernel's local locks do), EXPORT_SUPPORT, passthrough (later work).
 * time_gran is 1 ns: the daemon keeps times in ns (mount/inode-times.ts), so
 * cached and served times agree.
 */
import { FUSE_KERNEL_MINOR_VERSION, FUSE_KERNEL_VERSION, Init, Init2, OUT_HEADER } from "./protocol.js";
import type { Handler } from "./session.js";

export interface InitOptions {
  maxWrite: number;
  writebackCache: boolean;
  /** COMPUTERD_FUSE_NO_OPEN: answer OPEN and OPENDIR with ENOSYS where the kernel takes that as no-open. */
  noOpen: boolean;
  /** Ask for FUSE over io_uring when the kernel offers it. */
  uring: boolean;
}

export interface Negotiated {
  kernelMinor: number;
  flags: number;
  maxWrite: number;
  /** Files open without OPEN or RELEASE (reads and writes come with handle 0). */
  noOpen: boolean;
  /** Directories open without OPENDIR or RELEASEDIR (listings come with handle 0; the kernel may cache them). */
  noOpendir: boolean;
  /** FUSE over io_uring was offered and taken: entries may be registered now. */
  uring: boolean;
  /** What the kernel offered in flags2 (0 without INIT_EXT). */
  offered2: number;
}

const WANTED =
  Init.ASYNC_READ |
  Init.ATOMIC_O_TRUNC |
  Init.BIG_WRITES |
  Init.DO_READDIRPLUS |
  Init.ASYNC_DIO |
  Init.PARALLEL_DIROPS |
  Init.MAX_PAGES |
  Init.CACHE_SYMLINKS |
  Init.HANDLE_KILLPRIV_V2;
const PAGE = 4096;

export function initHandler(options: InitOptions, done: (negotiated: Negotiated) => void): Handler {
  return (_request, input) => {
    const major = input.readUInt32LE(40);
    const minor = input.readUInt32LE(44);
    const maxReadahead = input.readUInt32LE(48);
    const offered = input.readUInt32LE(52);
    if (major !== FUSE_KERNEL_VERSION) throw new Error(`FUSE kernel major ${major} (want 7)`);
    const noOpen = options.noOpen && (offered & Init.NO_OPEN_SUPPORT) !== 0;
    const noOpendir = options.noOpen && (offered & Init.NO_OPENDIR_SUPPORT) !== 0;
    let flags = offered & WANTED & (noOpen ? ~Init.ATOMIC_O_TRUNC : ~0);
    if (options.writebackCache) flags |= offered & Init.WRITEBACK_CACHE;
    const offered2 = (offered & Init.INIT_EXT) !== 0 ? input.readUInt32LE(56) : 0;
    const flags2 = options.uring ? offered2 & Init2.OVER_IO_URING : 0;
    if (flags2 !== 0) flags |= Init.INIT_EXT;
    return (body: Buffer) => {
      const at = OUT_HEADER;
      body.fill(0, at, at + 64);
      body.writeUInt32LE(FUSE_KERNEL_VERSION, at);
      body.writeUInt32LE(FUSE_KERNEL_MINOR_VERSION, at + 4);
      body.writeUInt32LE(maxReadahead, at + 8);
      body.writeUInt32LE(flags >>> 0, at + 12);
      body.writeUInt16LE(64, at + 16); // max_background
      body.writeUInt16LE(48, at + 18); // congestion_threshold
      body.writeUInt32LE(options.maxWrite, at + 20);
      body.writeUInt32LE(1, at + 24); // time_gran: 1 ns
      body.writeUInt16LE(Math.ceil(options.maxWrite / PAGE), at + 28);
      body.writeUInt32LE(flags2, at + 32);
      const uring = flags2 !== 0;
      done({ kernelMinor: minor, flags, maxWrite: options.maxWrite, noOpen, noOpendir, uring, offered2 });
      return 64;
    };
  };
}

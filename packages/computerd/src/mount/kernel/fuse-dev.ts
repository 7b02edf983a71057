/**
 * The native half of computerd's own FUSE layer (`native/fuse_dev.c`, built
 * by `native/build.sh` with the system compiler): opening /dev/fuse,
 * mount(2), one read() or write() per request (or FUSE over io_uring's
 * ring, native/fuse_uring.c), uv_poll on the daemon's loop, and writes or
 * umount2 that may block moved to libuv's worker threads.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export interface FuseDev {
  open(): number;
  mount(source: string, target: string, type: string, flags: number, data: string): void;
  /** One whole request into `buffer`: its length, or a negative errno (-EAGAIN when none is queued). */
  read(fd: number, buffer: Buffer): number;
  /** One whole reply or notification: the bytes written, or a negative errno. */
  write(fd: number, buffer: Buffer, length: number): number;
  /**
   * write() on a worker thread: for notifications that take a lock a pending request may hold.
   * `length` may span several whole messages (each begins with its length), written one by one.
   */
  writeAsync(fd: number, buffer: Buffer, length: number, done: (result: number) => void): void;
  /** Calls `onReadable` on the loop whenever the fd has a request queued. */
  poll(fd: number, onReadable: (status: number) => void): PollHandle;
  pollStop(handle: PollHandle): void;
  /** umount2 on a worker thread: 0 or a negative errno. */
  unmount(target: string, flags: number, done: (result: number) => void): void;
  /**
   * syncfs(2) of the filesystem at `target` on a worker thread: 0 or a negative errno. With the
   * writeback cache the kernel's dirty pages and times come to the daemon as requests meanwhile.
   */
  syncfs(target: string, done: (result: number) => void): void;
  /**
   * FUSE over io_uring (native/fuse_uring.c): registers one entry per buffer, spread over `queues`
   * queue ids, and calls `onRequests(count)` on the loop with `count` triples (entry, start, length)
   * in `completions`: the request is buffers[entry][start, start + length); a negative length is the
   * -errno that ended the entry. A handle, or a negative errno when the kernel refused (nothing kept).
   */
  uringOpen(
    fd: number,
    queues: number,
    buffers: Buffer[],
    completions: Int32Array,
    onRequests: (count: number) => void,
  ): UringHandle | number;
  /** The reply in out[0, length) for the entry's request, and a fetch of its next: 0 or a negative errno. */
  uringCommit(handle: UringHandle, entry: number, out: Buffer, length: number): number;
  /** Completions waiting on the ring (a read of its memory, no syscall): what busy polling watches. */
  uringReady(handle: UringHandle): number;
  /** Hands what is waiting to `onRequests` now, as the loop would on its next turn. */
  uringDrain(handle: UringHandle): void;
  uringClose(handle: UringHandle): void;
  /** A Unix stream socket pair, both ends close-on-exec. */
  socketPair(): [number, number];
  /** The fd an SCM_RIGHTS message on `socket` carries (non-blocking), or a negative errno (-EAGAIN: none sent). */
  receiveFd(socket: number): number;
}

declare const pollHandle: unique symbol;
export type PollHandle = { readonly [pollHandle]: true };
declare const uringHandle: unique symbol;
export type UringHandle = { readonly [uringHandle]: true };

/**
 * Where the addon is: native/build.sh's output next to the sources (this
 * file is src/mount/kernel or dist/mount/kernel), or `native/` beside the
 * container image's bundle (containers/build.sh copies it there).
 */
export const FUSE_DEV_PATHS = [
  fileURLToPath(new URL("../../../native/build/fuse_dev.node", import.meta.url)),
  fileURLToPath(new URL("./native/fuse_dev.node", import.meta.url)),
];

/** Loads the addon; throws a clear error when it is not built. */
export function loadFuseDev(): FuseDev {
  const path = FUSE_DEV_PATHS.find((candidate) => existsSync(candidate));
  if (path === undefined) {
    throw new Error(
      `native/fuse_dev.node is not built (run packages/computerd/native/build.sh); looked in ${FUSE_DEV_PATHS.join(", ")}`,
    );
  }
  return createRequire(import.meta.url)(path) as FuseDev;
}

/**
 * How a workspace is mounted: the mode and the FUSE options. The daemon's
 * configuration (cli/env.ts) reads them from the environment; the drivers
 * under mount/ take them as they are, so they live here, below both.
 */
import type { BusyPollSetting } from "./kernel/busy-poll.js";

export type MountMode = "fuse" | "macfuse" | "shim" | "none";
export type MountSetting = MountMode | "auto";

/**
 * The FUSE driver: `kernel`, computerd's own protocol layer over /dev/fuse (src/mount/kernel-driver.ts),
 * fuse-napi (libfuse 3) or fuse-native (libfuse 2); auto takes the first of them that can run here.
 */
export type FuseDriverSetting = "auto" | "fuse-napi" | "fuse-native" | "kernel";

export interface FuseOptions {
  driver: FuseDriverSetting;
  /** The kernel's writeback cache (the kernel driver and fuse-napi; fuse-native never). */
  writebackCache: boolean;
  /**
   * `COMPUTERD_FUSE_LOOP` (fuse-napi only): `main` (default) reads and
   * answers FUSE requests on the daemon's own event loop; `threads` hands
   * each from a libfuse worker thread to it and back (two thread wake-ups
   * more per request).
   */
  loop: "main" | "threads";
  /**
   * fuse-napi's page-cache policy: `kernel` (the default when neither
   * switch is set) keeps pages across opens and drops them when a sync
   * apply changes a path; `auto` revalidates on open by mtime; `none`.
   */
  pageCache: "kernel" | "auto" | "none";
  /**
   * fuse-napi: entry and negative-entry timeouts (seconds) taken once the
   * kernel accepts FUSE_NOTIFY_INC_EPOCH, which a push then sends; undefined
   * when COMPUTERD_FUSE_ENTRY_TIMEOUT or _NEGATIVE_TIMEOUT is set.
   */
  epochTimeouts: { entry: number; negative: number } | undefined;
  maxRead: number;
  maxWrite: number;
  autoCache: boolean;
  kernelCache: boolean;
  /** Seconds, or undefined to leave the option out. */
  attrTimeout: number | undefined;
  entryTimeout: number | undefined;
  acAttrTimeout: number | undefined;
  negativeTimeout: number | undefined;
  /** Extra `-o` options, `writeback_cache` removed. */
  extra: string[];
  trace: { file: string | undefined } | undefined;
  /**
   * The kernel driver's busy polling (mount/kernel/busy-poll.ts):
   * `COMPUTERD_FUSE_BUSY_POLL` auto (default), qos, spin or off, and
   * `COMPUTERD_FUSE_SPIN_US`, how long a spin waits for the next request
   * (default 50).
   */
  busyPoll: { setting: BusyPollSetting; spinMicros: number };
  /**
   * `COMPUTERD_FUSE_NO_OPEN` on (default) or off: the kernel driver answers
   * the first OPEN and OPENDIR with ENOSYS, and the kernel then opens files
   * and directories without asking (no OPEN, RELEASE, OPENDIR or RELEASEDIR
   * round trips; docs/computerd.md, "kernel"). Off keeps handles for every open.
   */
  noOpen: boolean;
  /**
   * `COMPUTERD_FUSE_URING` on (default) or off: the kernel driver takes
   * requests through FUSE over io_uring where the kernel offers it (and
   * turns the fuse module's enable_uring on when it may), else from
   * /dev/fuse reads (mount/kernel/uring.ts).
   */
  uring: boolean;
}

/** The `-o` list for a FUSE mount, in the reference's order. */
export function fuseMountOptions(options: FuseOptions): string[] {
  const out = ["big_writes", "use_ino", `max_write=${options.maxWrite}`, `max_read=${options.maxRead}`];
  if (options.autoCache) out.push("auto_cache");
  else if (options.kernelCache) out.push("kernel_cache");
  if (options.attrTimeout !== undefined) out.push(`attr_timeout=${options.attrTimeout}`);
  if (options.entryTimeout !== undefined) out.push(`entry_timeout=${options.entryTimeout}`);
  if (options.negativeTimeout !== undefined) out.push(`negative_timeout=${options.negativeTimeout}`);
  if (options.acAttrTimeout !== undefined) out.push(`ac_attr_timeout=${options.acAttrTimeout}`);
  return [...out, ...options.extra];
}

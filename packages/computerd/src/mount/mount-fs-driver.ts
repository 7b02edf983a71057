/**
 * What the three FUSE drivers (fuse-napi, fuse-native, kernel) share: each
 * serves the kernel from one MountFs, and the daemon asks that MountFs, not
 * the binding, what chunk gc must keep and what idle reclaim may let go.
 * Each is built the same way and opens its mount() the same way (a mount a
 * crashed daemon left goes first); only what follows is the binding's own.
 */
import type { Database } from "@cloudflare/dofs";
import type { Logger } from "../log/logger.js";
import type { MountDriver } from "./driver.js";
import { MountFs } from "./mount-fs.js";
import { clearStaleMount } from "./mount-point.js";
import type { FuseOptions } from "./options.js";
import { FuseTrace } from "./trace.js";

export abstract class MountFsDriver implements Pick<MountDriver, "heldChunks" | "releaseIdle" | "parkedBytes"> {
  readonly fs: MountFs;
  protected readonly db: Database;
  protected readonly mountPoint: string;
  protected readonly options: FuseOptions;
  protected readonly log: Logger;
  /** Per-request timings when COMPUTERD_FUSE_TRACE asks for them (trace.ts). */
  protected readonly trace: FuseTrace | undefined;

  constructor(db: Database, mountPoint: string, options: FuseOptions, log: Logger) {
    this.fs = new MountFs(db, mountPoint);
    this.db = db;
    this.mountPoint = mountPoint;
    this.options = options;
    this.log = log;
    this.trace = options.trace ? new FuseTrace(options.trace.file, log) : undefined;
  }

  /** The first step of every driver's mount(): a stale mount at the mount point (a crashed daemon's) goes. */
  protected clearStaleMount(): Promise<void> {
    return clearStaleMount(this.mountPoint, this.log);
  }

  /** What open and parked files read: chunk gc keeps it. */
  heldChunks(into: Set<string>): void {
    this.fs.heldChunks(into);
  }

  releaseIdle(): void {
    this.fs.releaseIdle();
  }

  parkedBytes(): number {
    return this.fs.parkedBytes;
  }
}

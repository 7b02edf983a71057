/**
 * The seam between computerd and a mount mode. `fuse` (fuse-napi on
 * libfuse 3, or fuse-native on libfuse 2), `shim` (a real directory
 * reconciled both ways) and `none`.
 */
import { existsSync } from "node:fs";
import type { MountMode, MountSetting } from "./options.js";

export interface MountDriver {
  readonly mode: MountMode;
  /** Resolves once the mount point serves the workspace (boot listens only after this). */
  mount(): Promise<void>;
  /** Never synchronous on the daemon's loop: the loop must keep answering FUSE while the kernel lets go. */
  unmount(): Promise<void>;
  /** Sync hooks for the SyncPeer. After a push applied entries (their store paths). */
  afterApply?(paths: readonly string[]): void | Promise<void>;
  /** Before a push applies entries (their store paths): anything buffered goes to the store first. */
  beforeApply?(paths: readonly string[]): void | Promise<void>;
  /** Before the Durable Object pulls (`fetchChanges`): the mount settles what it holds, so the pull sees it. */
  beforeFetch?(): void | Promise<void>;
  /** Runs before each exec (the shim reconciles the disk first). */
  beforeExec?(): void | Promise<void>;
  stats?(): Record<string, number>;
  /** The daemon is idle: commit what is buffered and let go of idle buffers (see MountFs.releaseIdle). */
  releaseIdle?(): void;
  /** Bytes buffered for closed files; a change means the mount is busy. */
  parkedBytes?(): number;
  /**
   * Adds the stored blobs the mount still needs beyond the store's rows (open
   * and parked files). A driver without it leaves chunk gc to the spec's
   * one-hour window, since gc cannot know what its handles read.
   */
  heldChunks?(into: Set<string>): void;
}

export class MountUnavailableError extends Error {
  override readonly name = "MountUnavailableError";
}

/**
 * `auto`: Linux with /dev/fuse → fuse; macOS with macFUSE → macfuse; else
 * shim. An explicit fuse or macfuse that is unavailable throws.
 */
export function resolveMountMode(
  setting: MountSetting,
  platform: NodeJS.Platform = process.platform,
  exists: (path: string) => boolean = existsSync,
  devFuse = "/dev/fuse",
): MountMode {
  const fuse = platform === "linux" && exists(devFuse);
  const macfuse = platform === "darwin" && exists("/Library/Filesystems/macfuse.fs");
  if (setting === "auto") return fuse ? "fuse" : macfuse ? "macfuse" : "shim";
  if (setting === "fuse" && !fuse) throw new MountUnavailableError(`FUSE_MOUNT=fuse but ${devFuse} is not available`);
  if (setting === "macfuse" && !macfuse)
    throw new MountUnavailableError("FUSE_MOUNT=macfuse but macFUSE is not installed");
  return setting;
}

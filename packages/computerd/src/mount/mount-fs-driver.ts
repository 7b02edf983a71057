/**
 * What the three FUSE drivers (fuse-napi, fuse-native, kernel) share: each
 * serves the kernel from one MountFs, and the daemon asks that MountFs, not
 * the binding, what chunk gc must keep and what idle reclaim may let go.
 */
import type { Database } from "@cloudflare/dofs";
import type { MountDriver } from "./driver.js";
import { MountFs } from "./mount-fs.js";

export abstract class MountFsDriver implements Pick<MountDriver, "heldChunks" | "releaseIdle" | "parkedBytes"> {
  readonly fs: MountFs;

  constructor(db: Database, mountPoint: string) {
    this.fs = new MountFs(db, mountPoint);
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

/**
 * The FUSE mount on fuse-native 2.2.6 (libfuse 2). fuse-native's known
 * defects and what this driver does about them:
 * - writes are 4 KiB without `big_writes` and never above 128 KiB: mount with
 *   big_writes (and max_write/max_read 512 KiB for the kernel's side);
 * - `utimens` receives atime twice: the real mtime is read back from the
 *   blocked caller (utimens.ts);
 * - without `use_ino` inode numbers are invented per lookup and a local
 *   `git clone` fails: mount with use_ino and report dofs inode numbers;
 * - files unlinked while open become `.fuse_hidden*`: MountFs keeps those
 *   names out of the store;
 * - each op times out after 15 s by default: turned off (a big commit may
 *   take longer on a slow machine; the kernel has its own limits);
 * - its option builder knows only some options: `_fuseOptions` is replaced
 *   with our own list.
 */
import { createRequire } from "node:module";
import { withTimeout } from "@cloudflare/computer-rpc";
import type { MountDriver } from "./driver.js";
import { opAdapter, sharedOps } from "./fuse-callbacks.js";
import { nanosOf } from "./inode-times.js";
import { userAllowOther } from "./kernel/fusermount.js";
import { MountFsDriver } from "./mount-fs-driver.js";
import { commitAndUnmount } from "./mount-point.js";
import { fuseMountOptions } from "./options.js";
import { resolveMtime } from "./utimens.js";

/** What fuse-native's C glue makes of UTIME_NOW and UTIME_OMIT (their tv_nsec read as ms). */
const NOW_OR_OMIT_MS = 1073;

const MOUNT_TIMEOUT_MS = 5_000;

interface FuseInstance {
  mount(cb: (error: Error | null) => void): void;
  unmount(cb: (error: Error | null) => void): void;
  _fuseOptions(): string;
}
type FuseClass = new (mnt: string, ops: Record<string, unknown>, opts: Record<string, unknown>) => FuseInstance;

export class FuseNativeDriver extends MountFsDriver implements MountDriver {
  readonly mode = "fuse" as const;
  #fuse: FuseInstance | undefined;

  async mount(): Promise<void> {
    await this.clearStaleMount();
    const Fuse = createRequire(import.meta.url)("fuse-native") as FuseClass;
    const fuse = new Fuse(this.mountPoint, this.#ops(), { timeout: false, mkdir: true });
    // As the other drivers: every uid may use the mount, the kernel checks modes and owners.
    const privileged = process.getuid?.() === 0;
    const access = privileged || userAllowOther() ? ["allow_other", "default_permissions"] : ["default_permissions"];
    const options = [
      ...fuseMountOptions(this.options),
      ...access,
      "auto_unmount",
      "fsname=computerd",
      "subtype=computerd",
    ];
    // fuse-native builds `-o` from a fixed set of its own options; ours are passed whole.
    fuse._fuseOptions = () => `-o${options.join(",")}`;
    await withTimeout(
      new Promise<void>((resolve, reject) => fuse.mount((error) => (error ? reject(error) : resolve()))),
      MOUNT_TIMEOUT_MS,
      `FUSE mount of ${this.mountPoint} did not come up within ${MOUNT_TIMEOUT_MS} ms`,
    );
    this.#fuse = fuse;
    this.trace?.install();
    this.log.info(`mounted ${this.mountPoint} (fuse-native, -o ${options.join(",")})`);
    // libfuse 2 through fuse-native hands us no caller: what another user creates is the daemon's.
    this.log.info(
      "fuse-native: files other users create belong to the daemon's user (no caller context); the kernel driver or fuse-napi keep their owners",
    );
  }

  async unmount(): Promise<void> {
    const fuse = this.#fuse;
    this.#fuse = undefined;
    if (fuse === undefined) return;
    this.trace?.report();
    // fuse-native runs `fusermount -uz` as a child process, so this loop keeps serving FUSE meanwhile.
    await commitAndUnmount(this.fs, fuse, this.mountPoint, this.log, MOUNT_TIMEOUT_MS);
  }

  beforeFetch(): void {
    this.fs.commitAll();
  }

  afterApply(): void {
    this.fs.invalidate();
  }

  beforeApply(): void {
    this.fs.prepareApply();
  }

  stats(): Record<string, number> {
    return this.fs.stats();
  }

  /** fuse-native's callback table over MountFs; every op answers an errno on failure. */
  #ops(): Record<string, unknown> {
    const fs = this.fs;
    const op = opAdapter(this.trace);
    return {
      ...sharedOps(fs, op),
      fgetattr: op("fgetattr", (path: string) => fs.getattr(path)),
      readdir: op("readdir", (path: string) => fs.readdir(path)),
      utimens: op("utimens", (path: string, atime: number) => {
        // fuse-native passes the atime twice in ms; the mtime is read back from the caller (utimens.ts).
        const mtime = resolveMtime(atime, Date.now());
        // UTIME_NOW and UTIME_OMIT both reach us as ~1073 ms: taken as now, what `touch` means.
        const asked = Math.trunc(atime) === NOW_OR_OMIT_MS ? "now" : nanosOf(atime);
        fs.utimens(path, { atime: asked, mtime: mtime === undefined ? undefined : nanosOf(mtime) });
      }),
      ...(fs.persists ? {} : { flush: op("flush", () => undefined) }),
    };
  }
}

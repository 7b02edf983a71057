/**
 * Mount-point housekeeping shared by the FUSE drivers: is a point mounted,
 * detach a dead one, and a lazy unmount that never blocks the daemon's loop
 * (every step is a child process, so the loop keeps answering FUSE while the
 * kernel lets go).
 */
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { promisify } from "node:util";
import { withTimeout } from "@cloudflare/computer-rpc";
import type { Logger } from "../log/logger.js";

const run = promisify(execFile);

/**
 * A mount point left behind by a daemon that died without auto_unmount
 * finishing answers ENOTCONN (ECONNABORTED or ECANCELED where the kernel
 * aborted it, as under FUSE over io_uring); detach it lazily before mounting again. Each
 * start before ours may have stacked another dead mount on it (a pid
 * namespace's daemon dies with its cleanup helper): all go, down to a live
 * mount or the guard beneath (guard.ts).
 */
export async function clearStaleMount(mountPoint: string, log: Logger): Promise<void> {
  for (let layer = 0; layer < STACKED_LIMIT && isMounted(mountPoint); layer++) {
    try {
      statSync(mountPoint);
      return; // A live mount: the binding reports "in use" itself.
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTCONN" && code !== "ECONNABORTED" && code !== "ECANCELED") return;
    }
    log.info(`${mountPoint} is a dead mount; detaching it`);
    const before = mountCount(mountPoint);
    await lazyUnmount(mountPoint);
    if (mountCount(mountPoint) >= before) return; // Nothing came off: mounting will say why.
  }
}

/** Dead mounts detached at one start, at most: a bound, should every detach leave one more behind. */
const STACKED_LIMIT = 16;

export function isMounted(mountPoint: string): boolean {
  return mountCount(mountPoint) > 0;
}

/** How many mounts are stacked at `mountPoint`. */
function mountCount(mountPoint: string): number {
  try {
    const escaped = mountPoint.replaceAll(" ", "\\040");
    return readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .filter((line) => line.split(" ")[4] === escaped).length;
  } catch {
    return 0;
  }
}

/**
 * Detaches the top mount at `mountPoint`: `fusermount -uz`, then
 * `umount -l`, each at once even with a dead daemon behind it. Stops as
 * soon as one came off, so a guard beneath (guard.ts) stays.
 */
export async function lazyUnmount(mountPoint: string): Promise<void> {
  const before = mountCount(mountPoint);
  for (const [command, args] of [
    ["fusermount3", ["-uz", mountPoint]],
    ["fusermount", ["-uz", mountPoint]],
    ["umount", ["-l", mountPoint]],
  ] as const) {
    try {
      await run(command, [...args], { timeout: 5_000 });
      if (mountCount(mountPoint) < before) return;
    } catch {
      // Try the next way.
    }
  }
}

/** What a FUSE binding offers to unmount (fuse-napi and fuse-native alike). */
export interface UnmountableFuse {
  unmount(callback: (error?: Error | null) => void): void;
}

/**
 * Commits every parked write, then unmounts through the binding (which does
 * it off this loop, so FUSE keeps being served meanwhile); detaches lazily if
 * that fails or hangs.
 */
export async function commitAndUnmount(
  fs: { commitAll(): void },
  fuse: UnmountableFuse,
  mountPoint: string,
  log: Logger,
  timeoutMs: number,
): Promise<void> {
  try {
    fs.commitAll();
  } catch (error) {
    log.error("commit before unmount failed", error);
  }
  try {
    await withTimeout(
      new Promise<void>((resolve, reject) => fuse.unmount((error) => (error ? reject(error) : resolve()))),
      timeoutMs,
      "unmount timed out",
    );
  } catch (error) {
    log.error(`unmount of ${mountPoint} failed; detaching it lazily`, error);
    await lazyUnmount(mountPoint);
  }
}

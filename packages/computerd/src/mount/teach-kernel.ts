/**
 * With the kernel's writeback cache the kernel keeps its own size and
 * mtime of a regular file while it caches the inode, whatever the daemon
 * answers. After a push changed such a file, the new ones go in through
 * the mount itself: a truncate from libuv's threads (when the kernel's size
 * differs) and a `touch` in a child process, so the daemon's loop serves
 * both meanwhile. The daemon answers them as no-ops, since its store has
 * them already (the drivers say how). Both writeback drivers use it (fuse-napi.ts, kernel-driver.ts).
 */
import { execFile } from "node:child_process";
import { stat, truncate } from "node:fs/promises";
import { promisify } from "node:util";
import type { Logger } from "../log/logger.js";

const run = promisify(execFile);

export interface PushedFile {
  /** Where it is on the mount. */
  path: string;
  size: number;
  /** Milliseconds, as the store keeps it. */
  mtime: number;
}

/** One file after another; `before` and `after` bracket each (the kernel driver marks it as settling). */
export async function teachKernel<File extends PushedFile>(
  files: readonly File[],
  log: Logger,
  hooks: { before?: (file: File) => void; after?: (file: File) => void } = {},
): Promise<void> {
  for (const file of files) {
    hooks.before?.(file);
    try {
      // Only a size that differs: a truncate to 0 of an empty file moves its times (O_TRUNC's rule, which MountFs
      // follows), and the store has them already.
      if ((await stat(file.path)).size !== file.size) await truncate(file.path, file.size);
      // touch parses the time exactly; fs.utimes goes through a double and can land a nanosecond short.
      const seconds = `${Math.floor(file.mtime / 1000)}.${String(file.mtime % 1000).padStart(3, "0")}`;
      await run("touch", ["-c", "-m", "-d", `@${seconds}`, file.path], { timeout: 30_000 });
    } catch (error) {
      // Renamed or removed by the same push: the next lookup is fresh anyway.
      log.info(`could not refresh the kernel's size of ${file.path}: ${(error as Error).message}`);
    } finally {
      hooks.after?.(file);
    }
  }
}

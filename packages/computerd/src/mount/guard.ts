/**
 * The guard beneath a FUSE mount: an empty read-only tmpfs mounted on the
 * mount point first, the FUSE mount stacked on it. When the daemon dies
 * and its mount is detached (the watchdog's `umount -l`, libfuse's
 * auto_unmount), a process still writing to /workspace/... meets the guard
 * and gets EROFS, instead of writing into the directory beneath, where
 * nothing would ever sync it. A restarted daemon finds its guard still
 * there and mounts on it again; a clean shutdown takes it away.
 *
 * Only root may mount one (mount(2) needs CAP_SYS_ADMIN; fusermount3 mounts
 * no tmpfs): without root the mount point stays unguarded, and the log says so.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import type { Logger } from "../log/logger.js";

const run = promisify(execFile);

/** The guard's source name in /proc/self/mountinfo: how a restarted daemon knows its own. */
export const GUARD_SOURCE = "computerd-guard";
const GUARD_OPTIONS = "ro,nosuid,nodev,noexec,size=4k,mode=0755";

/** The mount on top at `mountPoint` (the last listed there), if any. */
export function topMount(mountPoint: string): { fstype: string; source: string } | undefined {
  let top: { fstype: string; source: string } | undefined;
  let info: string;
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return undefined;
  }
  const escaped = mountPoint.replaceAll(" ", "\\040");
  for (const line of info.split("\n")) {
    const fields = line.split(" ");
    if (fields[4] !== escaped) continue;
    const dash = fields.indexOf("-", 6);
    top = { fstype: fields[dash + 1] ?? "", source: fields[dash + 2] ?? "" };
  }
  return top;
}

/** True once the mount point is guarded (a guard mounted now, or one an earlier daemon left). */
export async function guardMountPoint(mountPoint: string, log: Logger): Promise<boolean> {
  if (topMount(mountPoint)?.source === GUARD_SOURCE) return true;
  if (process.getuid?.() !== 0) {
    log.info(`${mountPoint} is not guarded (needs root): writes after a daemon crash would land beneath it`);
    return false;
  }
  mkdirSync(mountPoint, { recursive: true });
  try {
    await run("mount", ["-t", "tmpfs", "-o", GUARD_OPTIONS, GUARD_SOURCE, mountPoint], { timeout: 5_000 });
    return true;
  } catch (error) {
    log.error(`could not guard ${mountPoint}; writes after a daemon crash would land beneath it`, error);
    return false;
  }
}

/** Takes the guard away after a clean unmount (lazily: nothing holds an empty read-only tmpfs long). */
export async function removeGuard(mountPoint: string): Promise<void> {
  if (topMount(mountPoint)?.source !== GUARD_SOURCE) return;
  await run("umount", ["-l", mountPoint], { timeout: 5_000 }).catch(() => undefined);
}

/**
 * Unsticking a dead container's FUSE mount. When computerd dies (killed, or
 * crashed), commands blocked in a read or write on its mount can stay in
 * uninterruptible sleep forever — and with them the container's pid
 * namespace, so the container never finishes exiting. The kernel's fusectl
 * `abort` fails those requests (ENOTCONN) and lets everything exit. The
 * connection id is the minor device number of the mount, read from the
 * daemon's mountinfo while it is alive.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const CONNECTIONS = "/sys/fs/fuse/connections";

/** The FUSE connection id of the mount at `mountPoint` in `pid`'s mount namespace, if there is one. */
export function fuseConnectionOf(pid: number, mountPoint: string): number | undefined {
  try {
    for (const line of readFileSync(`/proc/${pid}/mountinfo`, "utf8").split("\n")) {
      // "36 25 0:42 / /workspace rw,... - fuse computerd rw,..."
      const fields = line.split(" ");
      const separator = fields.indexOf("-");
      if (fields[4] !== mountPoint || !fields[separator + 1]?.startsWith("fuse")) continue;
      const minor = Number(fields[2]?.split(":")[1]);
      if (Number.isInteger(minor)) return minor;
    }
  } catch {
    // The process is gone or its mount is not up yet: nothing to abort later.
  }
  return undefined;
}

/** Aborts the connection (a no-op when it is already gone). Mounts fusectl on first use. */
export function abortFuseConnection(id: number): void {
  try {
    if (!existsSync(`${CONNECTIONS}/${id}`)) {
      if (existsSync(CONNECTIONS) && !existsSync(`${CONNECTIONS}/${id}`) && !isFusectlMounted()) {
        execFileSync("mount", ["-t", "fusectl", "none", CONNECTIONS], { stdio: "ignore" });
      }
      if (!existsSync(`${CONNECTIONS}/${id}`)) return;
    }
    writeFileSync(`${CONNECTIONS}/${id}/abort`, "1");
  } catch {
    // Best effort: without fusectl the stuck processes stay, as they would without this.
  }
}

function isFusectlMounted(): boolean {
  try {
    return readFileSync("/proc/self/mounts", "utf8").includes(" fusectl ");
  } catch {
    return false;
  }
}

/**
 * Unsticking a dead container's FUSE mount. When computerd dies (killed, or
 * crashed), commands blocked in a read or write on its mount can stay in
 * uninterruptible sleep forever — and with them the container's pid
 * namespace, so the container never finishes exiting. The kernel's fusectl
 * `abort` fails those requests (ENOTCONN) and lets everything exit. The
 * connection id is the minor device number of the mount, read from the
 * daemon's mountinfo while it is alive.
 *
 * Connection ids are reused as soon as a connection is gone, so an id alone
 * may by now name another daemon's mount (another container, another host
 * on the machine). We abort only while a process in the container's own
 * mount namespace still sees that connection at the mount point.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";

const CONNECTIONS = "/sys/fs/fuse/connections";

/** A container's FUSE connection, and where it is mounted. */
export interface FuseConnection {
  readonly id: number;
  readonly mountPoint: string;
  /** `readlink /proc/<pid>/ns/mnt` of the container, e.g. `mnt:[4026532301]`. */
  readonly mountNamespace: string;
}

/** The FUSE connection of the mount at `mountPoint` in `pid`'s mount namespace, if there is one. */
export function fuseConnectionOf(pid: number, mountPoint: string): FuseConnection | undefined {
  const id = connectionIdAt(pid, mountPoint);
  if (id === undefined) return undefined;
  try {
    return { id, mountPoint, mountNamespace: readlinkSync(`/proc/${pid}/ns/mnt`) };
  } catch {
    return undefined;
  }
}

/** Aborts the connection while it is still the container's (a no-op otherwise). Mounts fusectl on first use. */
export function abortFuseConnection(connection: FuseConnection): void {
  try {
    if (!stillMounted(connection)) return;
    const { id } = connection;
    if (!existsSync(`${CONNECTIONS}/${id}`)) {
      if (existsSync(CONNECTIONS) && !isFusectlMounted()) {
        execFileSync("mount", ["-t", "fusectl", "none", CONNECTIONS], { stdio: "ignore" });
      }
      if (!existsSync(`${CONNECTIONS}/${id}`)) return;
    }
    writeFileSync(`${CONNECTIONS}/${id}/abort`, "1");
  } catch {
    // Best effort: without fusectl the stuck processes stay, as they would without this.
  }
}

/** Whether some process of the container's mount namespace still has the connection at its mount point. */
export function stillMounted(connection: FuseConnection): boolean {
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readlinkSync(`/proc/${pid}/ns/mnt`) !== connection.mountNamespace) continue;
    } catch {
      continue;
    }
    if (connectionIdAt(pid, connection.mountPoint) === connection.id) return true;
  }
  return false;
}

function connectionIdAt(pid: number, mountPoint: string): number | undefined {
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
    // The process is gone or its mount is not up yet.
  }
  return undefined;
}

function isFusectlMounted(): boolean {
  try {
    return readFileSync("/proc/self/mounts", "utf8").includes(" fusectl ");
  } catch {
    return false;
  }
}

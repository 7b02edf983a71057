/**
 * Mounting our own FUSE layer without root. mount(2) of a FUSE file system
 * needs CAP_SYS_ADMIN; libfuse's setuid helper `fusermount3` does it for any
 * user who owns the mount point: it opens /dev/fuse, mounts, and sends the fd
 * back over the Unix socket named by `_FUSE_COMMFD` (one SCM_RIGHTS message).
 * This is that protocol from our side, with the socket pair and the
 * fd-receiving recvmsg in native/fuse_dev.c.
 */
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { FuseDev } from "./fuse-dev.js";

/** The helper, as libfuse installs it (Debian's `fuse3` package). */
export const FUSERMOUNT = "fusermount3";

/** Whether `fusermount3` is an executable on PATH. */
export function fusermountOnPath(path = process.env.PATH ?? ""): boolean {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "")
    .some((dir) => {
      try {
        accessSync(join(dir, FUSERMOUNT), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/**
 * Whether /etc/fuse.conf lets users other than root pass `allow_other`.
 * Without it fusermount3 refuses the whole mount, so we leave the option out
 * and only the daemon's own user (and root) can use the mount.
 */
export function userAllowOther(conf = "/etc/fuse.conf"): boolean {
  try {
    return readFileSync(conf, "utf8")
      .split("\n")
      .some((line) => line.trim() === "user_allow_other");
  } catch {
    return false;
  }
}

/**
 * Runs `fusermount3 -o options -- mountPoint` with one end of a socket pair
 * as its `_FUSE_COMMFD` and returns the /dev/fuse fd it sends back. The
 * kernel fills in `fd=`, `user_id=` and `group_id=` from the helper's side;
 * `options` are the rest (rootmode, default_permissions, ...).
 */
export async function mountWithFusermount(dev: FuseDev, mountPoint: string, options: string): Promise<number> {
  const [ours, theirs] = dev.socketPair();
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      // stdio slot 3 is `theirs`, dup'ed into the child without close-on-exec.
      const child = spawn(FUSERMOUNT, ["-o", options, "--", mountPoint], {
        stdio: ["ignore", "ignore", "pipe", theirs],
        env: { ...process.env, _FUSE_COMMFD: "3" },
      });
      let stderr = "";
      child.stderr?.on("data", (data: Buffer) => {
        stderr += data.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    const fd = dev.receiveFd(ours);
    if (fd < 0) {
      const why = stderr.trim() || `exit ${code}`;
      throw new Error(`${FUSERMOUNT} did not mount ${mountPoint}: ${why}`);
    }
    return fd;
  } finally {
    closeSync(ours);
    closeSync(theirs);
  }
}

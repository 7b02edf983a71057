/**
 * Running a daemon and real tools as `nobody` (uid and gid 65534): a mount
 * point it may mount on, and a shell as it in a directory.
 */
import { execFileSync } from "node:child_process";
import { chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type DaemonUser, tempDir } from "./daemon.js";

export const NOBODY: DaemonUser = { uid: 65534, gid: 65534 };

/** A mount point under a directory `nobody` owns (fusermount3 mounts only where its caller may write). */
export function nobodysMountPoint(prefix = "nonroot"): string {
  const parent = tempDir(prefix);
  chownSync(parent, NOBODY.uid, NOBODY.gid);
  const point = join(parent, "workspace");
  mkdirSync(point);
  chownSync(point, NOBODY.uid, NOBODY.gid);
  return point;
}

/** `script` in bash (-euo pipefail) as `nobody` with no supplementary groups, in `cwd`; its stdout. */
export function asNobody(cwd: string, script: string): string {
  return execFileSync(
    "setpriv",
    [
      `--reuid=${NOBODY.uid}`,
      `--regid=${NOBODY.gid}`,
      "--clear-groups",
      "bash",
      "-euo",
      "pipefail",
      "-c",
      `cd "$0" && ${script}`,
      cwd,
    ],
    {
      cwd: "/",
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "n",
        GIT_AUTHOR_EMAIL: "n@example.invalid",
        GIT_COMMITTER_NAME: "n",
        GIT_COMMITTER_EMAIL: "n@example.invalid",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

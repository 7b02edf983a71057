/**
 * The test daemon booted from the workspace image (containers/rootfs.sh), for
 * the `computerd-image:node` project: computerd is the image's bundle on the
 * image's Node, chrooted into the root filesystem in its own mount and pid
 * namespaces by the local container host's launcher (src/local-host/rootfs.ts),
 * and mounts FUSE at the image's /workspace. The tests reach that mount as
 * root through `/proc/<pid>/root/workspace`, which resolves in the daemon's own
 * root and mount namespace.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { inject } from "vitest";
import { rootfsLaunch } from "../src/local-host/rootfs.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The image root filesystem every test daemon boots from (only in `computerd-image:node`). */
    computerdImageRootfs?: string;
  }
}

/** The image to boot from, when the project's global setup built one. */
export function imageRootfs(): string | undefined {
  return inject("computerdImageRootfs");
}

export interface ImageProcess {
  /** `unshare`, whose child in the new namespaces is computerd. */
  child: ChildProcess;
  /** computerd's pid (as the host counts). */
  daemonPid(): number;
  /** The image's /workspace, seen from the host. */
  mountPoint(): string;
  /** The image's /workspace as computerd names it. */
  ownMountPoint: string;
}

/** Spawns computerd in the image with `env` on top of the image's own; stdout and stderr piped. */
export function spawnInImage(rootfs: string, env: Record<string, string>): ImageProcess {
  const launch = rootfsLaunch(rootfs, { HOST: "127.0.0.1", PORT: "0", ...env });
  const child = spawn(
    "unshare",
    ["--mount", "--propagation", "private", "--pid", "--fork", "--kill-child=SIGKILL", "--", ...launch.argv],
    { env: launch.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const own = launch.env.MOUNT_POINT ?? "/workspace";
  const daemonPid = (): number => {
    const pid = child.pid ?? 0;
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0]);
  };
  return {
    child,
    daemonPid,
    mountPoint: () => {
      const pid = daemonPid();
      // Only a daemon chrooted into the image counts: its root is the image's directory.
      const root = readlinkSync(`/proc/${pid}/root`);
      if (root !== rootfs) throw new Error(`computerd ${pid} runs in ${root}, not in the image ${rootfs}`);
      return `/proc/${pid}/root${own}`;
    },
    ownMountPoint: own,
  };
}

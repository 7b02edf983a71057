/**
 * Booting a container from an image's root filesystem (containers/rootfs.sh
 * builds it from the same inputs as containers/Dockerfile): computerd runs
 * *inside* that directory, with the image's Node, native modules, Debian
 * packages and environment, as `docker run` of the image would start it.
 *
 * Inside the container's own mount and pid namespaces (see containers.ts) a
 * small shell script gives the root filesystem what a container runtime
 * would (/dev, /proc, /sys, a fresh /tmp, the host's DNS), then chroots into
 * it and execs the image's entrypoint. Every mount lives and dies with the
 * namespace: the cached directory on disk is never written to.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Written into the image by containers/rootfs.sh: the Dockerfile's ENV and ENTRYPOINT. */
const IMAGE_CONFIG = "opt/computerd/image-config.json";

export interface ImageConfig {
  env: Record<string, string>;
  entrypoint: string[];
}

/** The image's configuration; its absence means the directory is no workspace image. */
export function imageConfig(rootfs: string): ImageConfig {
  const path = join(rootfs, IMAGE_CONFIG);
  if (!existsSync(path))
    throw new Error(`${rootfs} is not a workspace image (no ${IMAGE_CONFIG}): build it with containers/rootfs.sh`);
  return JSON.parse(readFileSync(path, "utf8")) as ImageConfig;
}

/**
 * Runs as the namespace's first process (on the host's /bin/sh, before the
 * chroot): $1 is the root filesystem, the rest are host paths to show at the
 * same path inside (the egress gateway's CA directory), then `--` and the command.
 * The root is bound onto itself first so the mounts below are the namespace's
 * own; /tmp is a tmpfs, so a bound path under it needs no directory in the image.
 * The store's directory (COMPUTERD_STATE_DIR) gets a tmpfs of its own: it is the
 * container's writable disk, which the cached image must never become.
 */
const ENTER = `set -eu
root=$1; shift
mount --bind "$root" "$root"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
[ -d "$root/var/lib/computerd" ] && mount -t tmpfs -o mode=0700 tmpfs "$root/var/lib/computerd"
[ -e /etc/resolv.conf ] && mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
while [ "$1" != -- ]; do
  mkdir -p "$root$1"
  mount --bind "$1" "$root$1"
  shift
done
shift
exec chroot "$root" "$@"`;

/** Env keys whose values are host files the container must see (the egress gateway's CA). */
const HOST_FILES = ["COMPUTERD_EGRESS_CA", "COMPUTERD_EGRESS_CA_BUNDLE"];

/**
 * The command (to run under `unshare`) and environment of a container booted
 * from `rootfs`: the image's ENV under the launch's own, PATH and HOME the image's.
 */
export function rootfsLaunch(
  rootfs: string,
  env: Record<string, string>,
): { argv: string[]; env: Record<string, string> } {
  const image = imageConfig(rootfs);
  const merged: Record<string, string> = { ...env, ...image.env, HOME: "/root" };
  // The launch's own settings win over the image's defaults, as `docker run -e` over ENV.
  for (const key of ["PORT", "HOST", "MOUNT_POINT", "FUSE_MOUNT"]) if (env[key] !== undefined) merged[key] = env[key];
  delete merged.TMPDIR;
  const binds = [...new Set(HOST_FILES.map((key) => env[key]).filter((path): path is string => !!path))].map(dirname);
  return {
    argv: ["/bin/sh", "-c", ENTER, "computerd-enter", rootfs, ...new Set(binds), "--", ...image.entrypoint],
    env: merged,
  };
}

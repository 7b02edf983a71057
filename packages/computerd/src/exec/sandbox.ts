/**
 * The local container's root for its commands: bubblewrap (`bwrap`) puts each
 * command in a mount namespace of its own whose root is a read-only view of
 * the system directories only (no home, no checkout, no host `/tmp`), with
 * the container's own writable `/tmp`, `/var/tmp` and `/root` (directories of
 * the container's state dir, gone with the container), the container's
 * `/proc` (its own pid 1: the host launches computerd with `--mount-proc`),
 * a minimal `/dev`, its own hostname and IPC namespace, and the workspace
 * mount at its own path. Capabilities are Docker's default set, so root in a
 * command can chown but not mount or load modules. On Cloudflare's container
 * the container itself is the sandbox and this stays off.
 */
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";

export interface SandboxOptions {
  /** The container's writable state dir on the host: tmp/, var-tmp/ and root/ under it. */
  root: string;
  hostname: string;
  /** The workspace mount, bound read-write at the same path. */
  mountPoint: string;
  /**
   * Host files or directories a command needs read-only (the gateway CA, the
   * fetch preload and its undici, node): at the same path, or `[from, to]`.
   */
  readOnly?: (string | readonly [string, string])[];
  /** The bwrap binary (default `bwrap` on PATH). */
  bwrap?: string;
}

/** The system directories a command sees, read-only; a merged-/usr symlink stays a symlink. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/** Docker's default capabilities: enough for chown and setuid tools, not for mounts, modules or raw devices. */
const CAPABILITIES = [
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_FSETID",
  "CAP_FOWNER",
  "CAP_MKNOD",
  "CAP_NET_RAW",
  "CAP_SETGID",
  "CAP_SETUID",
  "CAP_SETFCAP",
  "CAP_SETPCAP",
  "CAP_NET_BIND_SERVICE",
  "CAP_SYS_CHROOT",
  "CAP_KILL",
  "CAP_AUDIT_WRITE",
];

/** The writable directories of a container's state dir, and where a command sees each. */
export const SANDBOX_WRITABLE: ReadonlyArray<readonly [string, string]> = [
  ["tmp", "/tmp"],
  ["var-tmp", "/var/tmp"],
  ["root", "/root"],
];

/**
 * The argv that runs `argv` in the sandbox with `cwd` as its directory. bwrap
 * changes directory itself (`--chdir`) and fails before running anything
 * when it cannot, so a bad cwd never falls through to another directory.
 */
export function sandboxArgv(options: SandboxOptions, cwd: string, argv: string[]): string[] {
  const args: string[] = [options.bwrap ?? "bwrap"];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else args.push("--ro-bind", dir, dir);
  }
  // The container's own /proc (computerd's pid namespace, mounted at launch): bwrap binds it without a pid namespace.
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/run", "--tmpfs", "/var");
  for (const [from, to] of SANDBOX_WRITABLE) args.push("--bind", `${options.root}/${from}`, to);
  for (const item of options.readOnly ?? []) {
    const [from, to] = typeof item === "string" ? [item, item] : item;
    if (from !== "" && existsSync(from) && !SYSTEM_DIRS.some((dir) => to === dir || to.startsWith(`${dir}/`))) {
      args.push("--ro-bind", from, to);
    }
  }
  args.push("--dir", dirname(options.mountPoint), "--bind", options.mountPoint, options.mountPoint);
  args.push("--unshare-uts", "--unshare-ipc", "--hostname", options.hostname);
  args.push("--cap-drop", "ALL");
  for (const cap of CAPABILITIES) args.push("--cap-add", cap);
  args.push("--die-with-parent", "--chdir", cwd, "--", ...argv);
  return args;
}

/**
 * Where a command's path lies on the daemon's disk, for checking a cwd
 * outside the workspace before the command runs: a system directory is
 * itself, `/tmp`, `/var/tmp` and `/root` are in the state dir, and anything
 * else does not exist in the command's root (undefined).
 */
export function hostPathOf(options: SandboxOptions, path: string): string | undefined {
  for (const [from, to] of SANDBOX_WRITABLE) {
    if (path === to || path.startsWith(`${to}/`)) return `${options.root}/${from}${path.slice(to.length)}`;
  }
  if (SYSTEM_DIRS.some((dir) => path === dir || path.startsWith(`${dir}/`)) || path === "/") return path;
  return undefined;
}

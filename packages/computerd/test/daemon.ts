/**
 * Starts a real computerd (the built `dist/cli/main.js`) as a child process
 * on 127.0.0.1 with PORT=0, and reads the bound port from its log line.
 * `stop()` SIGTERMs it and lazily unmounts whatever it left behind, so a
 * failing test never leaves a mount or a process around.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { imageRootfs, spawnInImage } from "./image-daemon.js";

export const MAIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface TestDaemon {
  child: ChildProcess;
  port: number;
  url: string;
  mountPoint: string;
  /** The mount point as computerd itself names it (its paths on the wire): `mountPoint`, or the image's /workspace. */
  ownMountPoint: string;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const started = new Set<TestDaemon>();

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `computerd-${prefix}-`));
}

/** Who the daemon runs as, when not as the test's own user (root). */
export interface DaemonUser {
  uid: number;
  gid: number;
}

export async function startDaemon(
  env: Record<string, string>,
  mountPoint?: string,
  user?: DaemonUser,
): Promise<TestDaemon> {
  // In `computerd-image:node` the daemon is the image's, booted from its root filesystem.
  const rootfs = mountPoint === undefined && user === undefined ? imageRootfs() : undefined;
  const image = rootfs === undefined ? undefined : spawnInImage(rootfs, { ...testDriverEnv(), ...env });
  let point = mountPoint ?? (image ? "" : join(tempDir("mnt"), "workspace"));
  const child =
    image?.child ??
    spawn(process.execPath, [MAIN], {
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/root",
        HOST: "127.0.0.1",
        PORT: "0",
        MOUNT_POINT: point,
        ...testDriverEnv(),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
  let output = "";
  child.stdout?.on("data", (data) => (output += data));
  child.stderr?.on("data", (data) => (output += data));
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`computerd did not start:\n${output}`)), 15_000);
    const check = (): void => {
      const match = /listening host=\S+ port=(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`computerd exited (${code}) before listening:\n${output}`));
    });
  });
  if (image) point = image.mountPoint();
  const daemon: TestDaemon = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    mountPoint: point,
    ownMountPoint: image ? image.ownMountPoint : point,
    output: () => output,
    exited,
    async stop(signal = "SIGTERM") {
      started.delete(daemon);
      // In the image, computerd itself: unshare would not pass SIGTERM on.
      if (child.exitCode === null && child.signalCode === null) {
        if (image) process.kill(image.daemonPid(), signal);
        else child.kill(signal);
      }
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("timeout"), 10_000))]);
      if (code === "timeout") child.kill("SIGKILL");
      cleanupMount(point);
      return code;
    },
  };
  started.add(daemon);
  return daemon;
}

/** The FUSE settings the whole run asks for, through the environment. */
function testDriverEnv(): Record<string, string> {
  return {
    // COMPUTERD_TEST_FUSE_DRIVER=fuse-napi runs every FUSE test file against another driver than the default.
    ...(process.env.COMPUTERD_TEST_FUSE_DRIVER
      ? { COMPUTERD_FUSE_DRIVER: process.env.COMPUTERD_TEST_FUSE_DRIVER }
      : {}),
    // COMPUTERD_TEST_FUSE_WRITEBACK_CACHE=1 runs them with the kernel's writeback cache.
    ...(process.env.COMPUTERD_TEST_FUSE_WRITEBACK_CACHE
      ? { COMPUTERD_FUSE_WRITEBACK_CACHE: process.env.COMPUTERD_TEST_FUSE_WRITEBACK_CACHE }
      : {}),
  };
}

/** Runs a computerd that is expected to exit at once (bad config); resolves with its code and output. */
export function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOST: "127.0.0.1", PORT: "0", FUSE_MOUNT: "none", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (data) => (output += data));
    child.stderr?.on("data", (data) => (output += data));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export function isMounted(point: string): boolean {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .some((line) => line.split(" ")[4] === point);
}

/** Lazy unmount (never blocks on a dead daemon), then removes the temp tree. */
export function cleanupMount(point: string): void {
  for (const command of [
    ["fusermount", "-uz", point],
    ["umount", "-l", point],
  ]) {
    if (!isMounted(point)) break;
    try {
      execFileSync(command[0] as string, command.slice(1), { stdio: "ignore", timeout: 5_000 });
    } catch {
      // Next way.
    }
  }
}

/** For afterAll: stops every daemon a test file started and still runs. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((daemon) => daemon.stop("SIGKILL")));
}

export function removeTree(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/**
 * A crash of computerd loses nothing it acknowledged, on the kernel driver
 * and on fuse-napi: a real daemon with
 * its store in COMPUTERD_STATE_DIR serves four writers on a real FUSE mount
 * (test/crash-writer.py: files closed, every third fsynced first), is
 * SIGKILLed after a seeded number of closes, and is started again on the
 * same state directory and mount point. The restarted daemon detaches the
 * dead mount, reopens the store, and the Durable Object side's next pull
 * (resuming from where its pull before the kill stopped) has every file
 * whose close(2) returned, with its sha256; so does the mount. Between
 * the two daemons a write to the mount point fails with EROFS (the guard
 * beneath the dead, detached mount), and nothing ever lands beneath it.
 * The same daemon as pid 1 of its own pid namespace (killed with everything
 * in it, its watchdog included) comes back with its closed files, and a
 * dead mount whose watchdog died is detached at the next start.
 * COMPUTERD_CRASH_SEED=n repeats a run; the seed is in the test's name.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomInt } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, describe, expect, test } from "vitest";
import { isMounted, startDaemon, stopAll, tempDir } from "../../test/daemon.js";
import { waitFor } from "../../test/wait.js";
import { GUARD_SOURCE, topMount } from "../mount/guard.js";

const WRITER = fileURLToPath(new URL("../../test/crash-writer.py", import.meta.url));
const WRITERS = 4;
const seed = Number(process.env.COMPUTERD_CRASH_SEED ?? randomInt(1_000_000));

afterAll(stopAll);

/** A mulberry32 step: the kill point from the seed. */
function random(state: number): number {
  let t = (state + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}

interface Writer {
  child: ChildProcess;
  exited: Promise<void>;
}

function startWriter(directory: string, writerSeed: number, acknowledged: Map<string, string>): Writer {
  const child = spawn("python3", [WRITER, directory, String(writerSeed)], { stdio: ["ignore", "pipe", "pipe"] });
  let pending = "";
  child.stdout?.on("data", (data: Buffer) => {
    pending += data.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const [path, sha] = line.split(" ");
      if (path && sha) acknowledged.set(path, sha);
    }
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, exited };
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describe("computerd killed with SIGKILL (store in COMPUTERD_STATE_DIR)", () => {
  // The kernel driver takes a close in its FLUSH and mounts on the guard; fuse-napi in its flush, unguarded.
  test.each([
    { driver: "kernel", guarded: true },
    { driver: "fuse-napi", guarded: false },
  ])(
    `$driver: every file closed or fsynced before the kill reaches the Durable Object after a restart (seed ${seed})`,
    async ({ driver, guarded }) => {
      const stateDir = tempDir("state");
      const mountPoint = join(tempDir("mnt"), "workspace");
      const env = {
        FUSE_MOUNT: "fuse",
        COMPUTERD_FUSE_DRIVER: driver,
        COMPUTERD_STATE_DIR: stateDir,
        COMPUTERD_IDLE_RECLAIM_MS: "0",
      };
      const first = await startDaemon(env, mountPoint);
      const store = openNodeDatabase();
      const doFs = new WorkspaceFilesystem(store);
      let client = await createWorkspaceClient({ url: `${first.url}/api` });

      const acknowledged = new Map<string, string>();
      const writers = Array.from({ length: WRITERS }, (_, index) =>
        startWriter(join(mountPoint, `w${index}`), seed * WRITERS + index, acknowledged),
      );
      const killAfter = 24 + Math.floor(random(seed) * 60);
      // A pull before the kill: the one after the restart must resume from its cursor, not start over.
      await waitFor(() => acknowledged.size >= killAfter / 2, "half the closes before the kill", { timeoutMs: 60_000 });
      await pullOnce({ db: store }, client.sync);
      await waitFor(() => acknowledged.size >= killAfter, `${killAfter} closes`, { timeoutMs: 60_000 });
      first.child.kill("SIGKILL");
      await first.exited;
      await client.close().catch(() => undefined);
      // Whatever a writer printed, close(2) had returned for: the daemon answered it before it died.
      await Promise.all(writers.map((writer) => writer.exited));
      expect(acknowledged.size).toBeGreaterThanOrEqual(killAfter);
      if (guarded) {
        // A write after the crash fails (the dead mount, or once the watchdog detached it the guard beneath), never lands.
        await waitFor(() => topMount(mountPoint)?.source === GUARD_SOURCE, "the watchdog to detach the dead mount");
        expect(() => writeFileSync(join(mountPoint, "after-the-crash"), "lost")).toThrow(/EROFS/);
      }

      const second = await startDaemon(env, mountPoint);
      expect(second.output()).toMatch(/reopened after a restart, checked/);
      client = await createWorkspaceClient({ url: `${second.url}/api` });
      await pullOnce({ db: store }, client.sync);
      const lost: string[] = [];
      for (const [path, sha] of acknowledged) {
        const pulled = await doFs.readFile(path).catch(() => undefined);
        const bytes = pulled === undefined ? undefined : new Uint8Array(await new Response(pulled).arrayBuffer());
        if (bytes === undefined || sha256(bytes) !== sha) lost.push(`${path} (Durable Object)`);
        else if (sha256(readFileSync(path)) !== sha) lost.push(`${path} (mount)`);
      }
      expect(lost, `seed ${seed}`).toEqual([]);
      // The restarted daemon serves the tree the writers left (acknowledged or not): every name lists.
      const listed = writers.reduce((count, _, index) => count + readdirSync(join(mountPoint, `w${index}`)).length, 0);
      expect(listed).toBeGreaterThanOrEqual(acknowledged.size);
      await client.close();
      await second.stop();
      expect(isMounted(mountPoint)).toBe(false);
      // Nothing was ever written beneath a guarded mount point.
      if (guarded) expect(readdirSync(mountPoint)).toEqual([]);
    },
    // Four writers of up to 1.5 MiB files on a loaded 2-core machine: room beyond the project's 30 s.
    120_000,
  );

  test("pid 1 of its own pid namespace: killed with everything in it; the next start mounts again and keeps the closed files", async () => {
    const mountPoint = join(tempDir("mnt"), "workspace");
    const env = { FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel", COMPUTERD_STATE_DIR: tempDir("state") };
    // --kill-child: SIGKILL of unshare reaches computerd, pid 1, and with it every process of the namespace.
    const first = await startDaemon(env, mountPoint, undefined, ["unshare", "--pid", "--fork", "--kill-child=SIGKILL"]);
    // Killed right after a create: the daemon's own open that teaches the kernel no-open (file-ops.ts) may be in
    // flight; from a thread of the daemon it held pid 1 (and so the namespace) alive in the kernel for good.
    writeFileSync(join(mountPoint, "closed"), "kept\n");
    first.child.kill("SIGKILL");
    await first.exited;
    await waitFor(() => watchdogOf(mountPoint) === undefined, "the namespace's processes to die", {
      timeoutMs: 30_000,
    });
    // The watchdog may read its EOF before the namespace's SIGKILL reaches it (pid 1 closes its files
    // first): the mount is then detached onto the guard, else left dead. Neither takes a write.
    expect(() => writeFileSync(join(mountPoint, "after"), "lost")).toThrow(/ENOTCONN|ECONNABORTED|ECANCELED|EROFS/);
    const second = await startDaemon(env, mountPoint);
    expect(readFileSync(join(mountPoint, "closed"), "utf8")).toBe("kept\n");
    expect(mountsAt(mountPoint)).toEqual(["tmpfs computerd-guard", "fuse.computerd computerd"]);
    await second.stop();
    expect(readdirSync(mountPoint)).toEqual([]);
  }, 60_000);

  test("a dead mount left attached (its watchdog died too, as in a pid namespace) is detached at the next start", async () => {
    const mountPoint = join(tempDir("mnt"), "workspace");
    const env = { FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel", COMPUTERD_STATE_DIR: tempDir("state") };
    const first = await startDaemon(env, mountPoint);
    const watchdog = watchdogOf(mountPoint);
    expect(watchdog).toBeDefined();
    process.kill(watchdog as number, "SIGKILL");
    first.child.kill("SIGKILL");
    await first.exited;
    // A dead connection: ENOTCONN, or ECONNABORTED / ECANCELED where the kernel aborted it (FUSE over io_uring).
    expect(() => readdirSync(mountPoint)).toThrow(/ENOTCONN|ECONNABORTED|ECANCELED/);
    expect(mountsAt(mountPoint)).toEqual(["tmpfs computerd-guard", "fuse.computerd computerd"]);
    const second = await startDaemon(env, mountPoint);
    expect(second.output()).toMatch(/is a dead mount; detaching it/);
    // The dead mount went; the guard stayed and the new mount sits on it, nothing stacked.
    expect(mountsAt(mountPoint)).toEqual(["tmpfs computerd-guard", "fuse.computerd computerd"]);
    writeFileSync(join(mountPoint, "alive"), "yes");
    await second.stop();
    expect(readdirSync(mountPoint)).toEqual([]);
  });
});

/** "fstype source" of every mount at `point`, bottom first. */
function mountsAt(point: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields[4] === point)
    .map((fields) => fields.slice(fields.indexOf("-", 6) + 1, fields.indexOf("-", 6) + 3).join(" "));
}

/** The pid of the kernel driver's watchdog for `point` (kernel-driver.ts: `sh -c … computerd-watchdog <point>`). */
function watchdogOf(point: string): number | undefined {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // It exited since the listing.
    }
    if (argv.includes("computerd-watchdog") && argv.includes(point)) return Number(pid);
  }
  return undefined;
}

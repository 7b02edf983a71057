/**
 * No command outlives its container's computerd: a real container of the
 * local container host (its own mount and pid namespaces, a real FUSE mount),
 * a writer started through `exec` that writes into the mount every 10 ms,
 * then `kill -9` of computerd. Once the daemon is gone its mount detaches
 * (`auto_unmount`); a writer still running then would write into the
 * directory under the mount, hidden by the next container's mount. The
 * kernel ends every process of the pid namespace with its init (computerd),
 * so the writer is gone and nothing ever lands underneath.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, describe, expect, test } from "vitest";
import { processesWith } from "../../test/processes.js";
import { waitFor } from "../../test/wait.js";
import { ContainerSet } from "./containers.js";

const ENTRY = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const CONTAINERS = fileURLToPath(new URL("../../dist/local-host/containers.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "computerd-lifetime-"));
const set = new ContainerSet({ entry: ENTRY, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });

afterAll(async () => {
  await set.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

async function stdoutOf(events: ReadableStream<ExecEvent>): Promise<string> {
  let out = "";
  for await (const event of events) if (event.name === "stdout") out += Buffer.from(event.value).toString();
  return out;
}

describe("a container's commands end with its computerd", () => {
  test("kill -9 of computerd: the writer is gone and nothing lands under the mount", async () => {
    const mountPoint = join(dir, "workspace");
    // egress none: each command also goes through `unshare --net`, the wrapper commands usually run under.
    const container = await set.start("writer", {
      env: { MOUNT_POINT: mountPoint, FUSE_MOUNT: "fuse" },
      enableInternet: false,
      runtimeId: "r1",
    });
    const client = await createWorkspaceClient({ url: `http://127.0.0.1:${container.port}/api` });
    const marker = `lifetime-writer-${process.pid}-${Date.now()}`;
    // No output (a broken pipe must not be what stops it) and SIGPIPE ignored: only a kill ends this loop.
    const writer = await client.shell.exec({
      source: `: ${marker}; exec >/dev/null 2>&1; trap '' PIPE; i=0; while :; do echo $i > ${mountPoint}/w$i; i=$((i+1)); sleep 0.01; done`,
      timeoutMs: 0,
    });
    const count = async (): Promise<number> =>
      Number((await stdoutOf((await client.shell.exec({ source: `ls ${mountPoint} | wc -l` })).events)).trim());
    await waitFor(async () => (await count()) >= 5, "five files from the writer");
    // The shell, and bwrap around it (the container's root): each carries the marker.
    expect(processesWith(marker).length).toBeGreaterThan(0);
    // The host sees the directory under the mount (the mount is in the container's namespace): empty.
    expect(readdirSync(mountPoint)).toEqual([]);
    writer.events.cancel().catch(() => {});
    await client.close().catch(() => {});

    process.kill(container.daemonPid, "SIGKILL");
    await waitFor(
      () => processesWith(marker).length === 0 && set.exit("writer") !== undefined,
      "the writer gone and its exit recorded",
    );
    expect(set.exit("writer")).toMatchObject({ runtimeId: "r1" });
    // Every process of the container is gone, so nothing can write here any more: what is here is final.
    expect(readdirSync(mountPoint)).toEqual([]);
  });

  test("kill -9 of the host: its container's computerd and commands end too", async () => {
    const mountPoint = join(dir, "orphan", "workspace");
    const marker = `lifetime-orphan-${process.pid}-${Date.now()}`;
    // A host in a process of its own, so it can die as a crash would; it starts one container whose command
    // sleeps, and prints computerd's pid.
    const script = `
      import { ContainerSet } from ${JSON.stringify(CONTAINERS)};
      import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
      const set = new ContainerSet({ entry: ${JSON.stringify(ENTRY)}, baseEnv: { PATH: process.env.PATH } });
      const c = await set.start("orphan", { env: { MOUNT_POINT: ${JSON.stringify(mountPoint)}, FUSE_MOUNT: "fuse" },
        enableInternet: false, runtimeId: "r2" });
      const client = await createWorkspaceClient({ url: "http://127.0.0.1:" + c.port + "/api" });
      // The marker is put together here, so only the command's own command line carries it whole.
      const marker = ${JSON.stringify(marker.slice(0, 8))} + ${JSON.stringify(marker.slice(8))};
      await client.shell.exec({ source: ": " + marker + "; exec >/dev/null 2>&1; sleep 300", timeoutMs: 0 });
      process.stdout.write(JSON.stringify({ daemon: c.daemonPid }) + "\\n");
    `;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let out = "";
      host.stdout?.on("data", (data) => (out += data));
      await waitFor(
        () => out.includes("\n") && processesWith(marker).length > 0,
        "the host's container and its command",
        {
          timeoutMs: 20_000,
        },
      );
      const { daemon } = JSON.parse(out) as { daemon: number };
      const alive = (pid: number): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(alive(daemon)).toBe(true);
      host.kill("SIGKILL");
      // unshare dies with the host (its parent-death signal), computerd gets --kill-child's SIGTERM and shuts down.
      await waitFor(() => !alive(daemon) && processesWith(marker).length === 0, "computerd and its command gone");
      expect(readdirSync(mountPoint)).toEqual([]);
    } finally {
      host.kill("SIGKILL"); // a failed check must not leave the host (and its container) behind
    }
  });
});

/**
 * Booting the workspace image (containers/rootfs.sh) on the local container
 * host, in the `computerd-image:node` project whose global setup builds it:
 * computerd runs chrooted in the image, on the image's Node, and its commands
 * see the image's Debian userland with every package of
 * containers/packages.txt; the boot leaves the cached directory untouched;
 * a directory that is no image is refused before anything starts.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ContainerSet } from "../src/local-host/containers.js";
import "./image-daemon.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const rootfs = inject("computerdImageRootfs") as string;
const baseEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/root" };
const set = new ContainerSet({ entry: "", rootfs, baseEnv });
afterAll(() => set.stopAll());

/** Runs `source` in the container; its exit code and stdout. */
async function exec(port: number, source: string): Promise<{ code: number | undefined; stdout: string }> {
  const client = await createWorkspaceClient({ url: `http://127.0.0.1:${port}/api` });
  try {
    let code: number | undefined;
    let stdout = "";
    for await (const event of (await client.shell.exec({ source })).events) {
      if (event.name === "exit") code = event.code;
      else if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
    }
    return { code, stdout };
  } finally {
    await client.close();
  }
}

/** Mounts of this (the host's) namespace at or under `dir`. */
const mountsUnder = (dir: string): string[] =>
  readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`));

describe("a container booted from the workspace image", () => {
  it("runs the image's computerd on the image's Node, chrooted, with its packages", async () => {
    const container = await set.start("image-boot", { env: {}, enableInternet: false, runtimeId: "r1" });
    expect(readlinkSync(`/proc/${container.daemonPid}/root`)).toBe(rootfs);
    expect(readlinkSync(`/proc/${container.daemonPid}/exe`)).toBe(join(rootfs, "opt/computerd/node/bin/node"));
    const node = await exec(container.port, "node --version && npm --version >/dev/null && cat /etc/debian_version");
    expect(node.code).toBe(0);
    const [version, debian] = node.stdout.trim().split("\n");
    expect(version).toBe(`v${readFileSync(join(root, ".node-version"), "utf8").trim()}`);
    expect(debian).toMatch(/^12\./);
    const packages = readFileSync(join(root, "containers/packages.txt"), "utf8")
      .split("\n")
      .map((line) => line.replace(/#.*/, "").trim())
      .filter(Boolean);
    expect(packages).toContain("fuse3");
    const installed = await exec(container.port, `dpkg-query -W -f '\${Package} \${Status}\\n' ${packages.join(" ")}`);
    expect(installed.code).toBe(0);
    expect(installed.stdout.trim().split("\n").sort()).toEqual(
      packages.map((name) => `${name} install ok installed`).sort(),
    );
    // Its mount is the image's /workspace, in the container's namespace only; the top one of the
    // stack (as root the kernel driver mounts FUSE over a read-only tmpfs guard, docs/computerd.md).
    const written = await exec(
      container.port,
      "echo image > /workspace/probe && findmnt -n -o FSTYPE /workspace | tail -n 1",
    );
    expect(written.stdout.trim()).toMatch(/^fuse/);
    expect(readFileSync(`/proc/${container.daemonPid}/root/workspace/probe`, "utf8")).toBe("image\n");
    expect(mountsUnder(rootfs)).toEqual([]);
    await set.stop("image-boot");
    // The cached image is as it was: nothing in its /tmp or /workspace, no mount left.
    expect(readdirSync(join(rootfs, "tmp"))).toEqual([]);
    expect(readdirSync(join(rootfs, "workspace"))).toEqual([]);
    expect(mountsUnder(rootfs)).toEqual([]);
  });

  it("refuses a directory that is no workspace image, before starting anything", async () => {
    const empty = mkdtempSync(join(tmpdir(), "not-an-image-"));
    try {
      const other = new ContainerSet({ entry: "", rootfs: empty, baseEnv });
      await expect(other.start("no-image", { env: {}, enableInternet: false, runtimeId: "r1" })).rejects.toThrow(
        `${empty} is not a workspace image (no opt/computerd/image-config.json): build it with containers/rootfs.sh`,
      );
      expect(other.names()).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

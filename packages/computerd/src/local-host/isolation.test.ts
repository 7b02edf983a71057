/**
 * A local container is a container: its commands see their own root (the
 * system directories read-only, not the host's home, checkout or /tmp), a
 * private /tmp that goes with the container, their own /proc whose pid 1 is
 * computerd, their own hostname, and still the workspace at /workspace.
 * A real container of the local container host, commands through computerd.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ContainerSet, type HostContainer } from "./containers.js";

const ENTRY = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const CHECKOUT = fileURLToPath(new URL("../../../..", import.meta.url)).replace(/\/$/, "");
const dir = mkdtempSync(join(tmpdir(), "computerd-isolation-"));
const mountPoint = join(dir, "workspace");
/** A file on the host's /tmp that no command may see. */
const hostSecret = join(dir, "host-secret");
const set = new ContainerSet({ entry: ENTRY, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/root" } });
let container: HostContainer;
let client: WorkspaceClient;

beforeAll(async () => {
  writeFileSync(hostSecret, "host\n");
  container = await set.start("isolation-box", {
    env: { MOUNT_POINT: mountPoint, FUSE_MOUNT: "fuse" },
    enableInternet: false,
    runtimeId: "r1",
  });
  client = await createWorkspaceClient({ url: `http://127.0.0.1:${container.port}/api` });
});

afterAll(async () => {
  await client?.close().catch(() => {});
  await set.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

async function run(source: string, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { events } = await client.shell.exec({ source, ...(cwd === undefined ? {} : { cwd }) });
  let stdout = "";
  let stderr = "";
  let code = Number.NaN;
  for await (const event of events as ReadableStream<ExecEvent>) {
    if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
    else if (event.name === "stderr") stderr += Buffer.from(event.value).toString();
    else if (event.name === "exit") code = event.code;
  }
  return { code, stdout, stderr };
}

describe("a local container's commands", () => {
  test("do not see the host's /tmp, and what they write there stays inside", async () => {
    const marker = `box-${process.pid}-${Date.now()}`;
    const result = await run(`test -e ${hostSecret} && echo SEEN; echo box > /tmp/${marker} && cat /tmp/${marker}`);
    expect(result).toMatchObject({ code: 0, stdout: "box\n" });
    expect(existsSync(join(tmpdir(), marker))).toBe(false);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    // The next command of the same container still has it: /tmp is the container's, not the command's.
    expect(await run(`cat /tmp/${marker}`)).toMatchObject({ code: 0, stdout: "box\n" });
  });

  test("have their own /proc: pid 1 is computerd, and no host process shows", async () => {
    const result = await run("tr '\\0' ' ' < /proc/1/cmdline; echo; ls /proc | grep -c '^[0-9]'");
    expect(result.code).toBe(0);
    const [cmdline, count] = result.stdout.trim().split("\n");
    expect(cmdline).toContain(ENTRY);
    // computerd, the command's shell, tr/ls/grep: a handful, not the host's hundreds.
    expect(Number(count)).toBeLessThan(20);
    expect(result.stdout).not.toContain(String(process.pid));
  });

  test("see neither the checkout, nor the host's home, and cannot write the system directories", async () => {
    const result = await run(
      `ls ${CHECKOUT}/package.json ${CHECKOUT}/packages 2>&1; ls /root; ls /home 2>&1; echo x 2>/dev/null > /etc/computerd-probe || echo RO; echo x > /probe && cat /probe`,
    );
    // The daemon's node is bound read-only at its own path (its parents appear empty), nothing else of the checkout.
    expect(result.stdout).toContain(`ls: cannot access '${CHECKOUT}/package.json'`);
    expect(result.stdout).toContain(`ls: cannot access '${CHECKOUT}/packages'`);
    expect(result.stdout).toContain("RO\n");
    // The root itself is a layer of the command's own: writable, and gone with it.
    expect(result.stdout).toContain("x\n");
    expect(await run("cat /probe")).toMatchObject({ code: 1, stdout: "" });
    expect(existsSync("/etc/computerd-probe")).toBe(false);
    expect(existsSync("/probe")).toBe(false);
  });

  test("have their own hostname, and no capability to mount", async () => {
    const result = await run("hostname; mount -t tmpfs none /tmp 2>&1 || echo NOMOUNT");
    expect(result.stdout).toMatch(/^isolationbox\nmount: \/tmp: permission denied[\s\S]*NOMOUNT\n$/);
  });

  test("still work in /workspace: write, read, cwd, chown", async () => {
    const result = await run(
      "mkdir -p sub && echo hi > sub/f && chown 1000:1000 sub/f && stat -c '%u %s' sub/f && pwd",
      undefined,
    );
    expect(result).toMatchObject({ code: 0, stdout: `1000 3\n${mountPoint}\n` });
    expect(await run("cat f; pwd", `${mountPoint}/sub`)).toMatchObject({ code: 0, stdout: `hi\n${mountPoint}/sub\n` });
  });

  test("a cwd that does not exist runs nothing, not even what follows a `;`", async () => {
    const result = await run("echo RAN; pwd", `${mountPoint}/nope`);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("nope");
    expect(result.code).not.toBe(0);
  });

  test("a cwd is a path of the container's own root: /etc and /tmp are there, the host's checkout is not", async () => {
    expect(await run("pwd", "/etc")).toMatchObject({ code: 0, stdout: "/etc\n" });
    expect(await run("pwd", "/")).toMatchObject({ code: 0, stdout: "/\n" });
    expect(await run("pwd; ls", "/tmp")).toMatchObject({ code: 0 });
    for (const cwd of [CHECKOUT, "/home", "/etc/nope", "/tmp/nope"]) {
      expect(await run("echo RAN", cwd)).toEqual({
        code: -1,
        stdout: "",
        stderr: `spawn failed: ENOENT: no such file or directory, chdir '${cwd}'\n`,
      });
    }
    expect(await run("echo RAN", "/etc/passwd")).toMatchObject({
      code: -1,
      stdout: "",
      stderr: expect.stringContaining("ENOTDIR"),
    });
  });

  test("the container's /tmp goes with it", async () => {
    const roots = () => readdirSync(tmpdir()).filter((name) => name.startsWith("computerd-container-isolationbox-"));
    expect(roots()).toHaveLength(1);
    await set.stop("isolation-box");
    expect(roots()).toEqual([]);
  });
});

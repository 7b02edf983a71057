/**
 * `TestBackend({ url })` end to end: a Workspace in a Durable Object (workerd)
 * dials a real computerd (the project's global setup starts one, with a real
 * FUSE mount and no secret) over a WebSocket, and the runtime's bracket runs
 * against it — push, exec, pull — as it does against a container.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { TestBackend } from "../../src/backends/running-computerd/backend.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";

const utf8 = { encoding: "utf8" } as const;

/** A fresh Workspace over a fresh object's storage, on a TestBackend pointed at the daemon; `dir` is this test's own. */
async function withTestBackend(body: (workspace: Workspace, dir: string) => Promise<void>): Promise<void> {
  const { url, mountPoint } = inject("computerd");
  const stub = env.SCRATCH.get(env.SCRATCH.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const workspace = new Workspace({ storage: state.storage, backends: [new TestBackend({ url })] });
    const dir = `${mountPoint}/${crypto.randomUUID()}`;
    await workspace.fs.mkdir(dir, { recursive: true });
    try {
      await body(workspace, dir);
    } finally {
      await workspace.close();
    }
  });
}

describe("TestBackend against a real computerd", () => {
  it("pushes the workspace's files before the command and pulls its writes back after", async () => {
    await withTestBackend(async (workspace, dir) => {
      await workspace.fs.writeFile(`${dir}/in.txt`, "from the host\n");
      const handle = await workspace.runtime.exec("cat in.txt; echo from the command > out.txt", {
        ...utf8,
        cwd: dir,
      });
      expect(handle.backend).toBe("test");
      const result = await handle.result();
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "from the host\n", stderr: "" });
      expect(result.pushed).toBeGreaterThan(0);
      expect(result.sync.status).toBe("complete");
      expect(await workspace.fs.readFile(`${dir}/out.txt`, "utf8")).toBe("from the command\n");
    });
  });

  it("hands stdin to the command as bytes, and reports stderr and the exit status", async () => {
    await withTestBackend(async (workspace, dir) => {
      const piped = await workspace.runtime.exec("cat", { ...utf8, cwd: dir, stdin: "piped é\n" });
      expect(await piped.result()).toMatchObject({ stdout: "piped é\n", exitCode: 0 });
      const failing = await workspace.runtime.exec("echo oops >&2; exit 3", { ...utf8, cwd: dir });
      expect(await failing.result()).toMatchObject({ status: "failed", exitCode: 3, stdout: "", stderr: "oops\n" });
    });
  });

  it("streams events ending with exit, and reattaches to a finished execution with getExec", async () => {
    await withTestBackend(async (workspace, dir) => {
      const handle = await workspace.runtime.exec("printf a; printf b >&2", { ...utf8, cwd: dir, id: "stream-1" });
      const names: string[] = [];
      for await (const event of handle as unknown as AsyncIterable<{ name: string }>) names.push(event.name);
      expect(names.at(-1)).toBe("exit");
      expect(names).toContain("stdout");
      const again = await workspace.runtime.getExec("stream-1", { ...utf8, backend: "test" });
      expect(await again.result()).toMatchObject({ stdout: "a", stderr: "b", exitCode: 0 });
    });
  });

  it("fails the call with a clear message when nothing listens at the URL", async () => {
    const stub = env.SCRATCH.get(env.SCRATCH.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const workspace = new Workspace({
        storage: state.storage,
        backends: [new TestBackend({ url: "http://127.0.0.1:9" })],
      });
      await expect(workspace.runtime.exec("true")).rejects.toThrow(
        /TestBackend: http:\/\/127\.0\.0\.1:9\/health is not reachable\. Is computerd running\?/,
      );
      await workspace.close();
    });
  });

  it("takes the original's options: url in http(s) or ws(s) form, id defaulting to test", () => {
    expect(new TestBackend({ url: "ws://127.0.0.1:1/" }).id).toBe("test");
    expect(new TestBackend({ url: "https://example.test", id: "mine" })).toMatchObject({ id: "mine", type: "test" });
    expect(() => new TestBackend({ url: "ftp://x" })).toThrow("TestBackend: unsupported URL scheme in ftp://x");
  });
});

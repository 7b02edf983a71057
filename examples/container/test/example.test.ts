/**
 * Drives the example through its HTTP routes against real parts: the Worker
 * is bundled the way wrangler would (esbuild) and served by Miniflare with a
 * SQLite Durable Object; its container is a real computerd process with a
 * real FUSE mount under a local container host started here, reached through
 * `COMPUTER_CONTAINER_HOST` exactly as in `npm run dev`. Needs root and the
 * packages built (dist/), like any consumer of them; `npm test` builds first.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const hostLog: string[] = [];
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: (line) => hostLog.push(line) });
});
afterAll(async () => {
  // Stops every computerd it started, which unmounts their /workspace.
  await host?.close();
  if (process.env.COMPUTER_HOST_LOG) process.stderr.write(`${hostLog.join("\n")}\n`);
});

// Hooks registered after the host's run inside them: the Worker starts after the host and
// (after-hooks run in reverse) stops before it.
const { request, exec } = useExampleWorker(example, () => ({ bindings: { COMPUTER_CONTAINER_HOST: host.url } }));

describe("examples/container", () => {
  it("writes and reads files under /workspace, and refuses paths outside it", async () => {
    const put = await request("/c/alice/file/workspace/notes/a.txt", { method: "PUT", body: "hello" });
    expect(put.status).toBe(204);
    const get = await request("/c/alice/file/workspace/notes/a.txt");
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("hello");
    expect((await request("/c/alice/file/workspace/missing.txt")).status).toBe(404);
    expect((await request("/c/bob/file/workspace/notes/a.txt")).status).toBe(404);
    expect((await request("/c/alice/file/etc/passwd")).status).toBe(400);
    expect((await request("/c/alice/file/workspace/%2e%2e/etc/passwd")).status).toBe(400);
    // `/../` and `/%2e%2e/` are resolved by URL parsing before the Worker sees them (the second case above
    // arrives as /c/alice/file/etc/passwd); `..` behind encoded slashes arrives as it is.
    const dotdot = await request("/c/alice/file/workspace/notes%2F..%2F..%2Fetc%2Fpasswd", {
      method: "PUT",
      body: "x",
    });
    expect(dotdot.status).toBe(400);
  });

  it("runs commands in the container against the same files, and brings their writes back", async () => {
    await request("/c/carol/file/workspace/in.txt", { method: "PUT", body: "from the worker\n" });
    const response = await exec("carol", {
      command: "cat in.txt && mkdir -p out && tr a-z A-Z < in.txt > out/upper.txt && echo done >&2 && uname -s",
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Record<string, unknown>;
    expect(result).toMatchObject({
      status: "completed",
      exitCode: 0,
      stdout: "from the worker\nLinux\n",
      stderr: "done\n",
      encoding: "utf8",
      sync: { status: "complete" },
    });
    expect(result.pushed).toBeGreaterThan(0);
    expect(result.pulled).toBeGreaterThan(0);
    const written = await request("/c/carol/file/workspace/out/upper.txt");
    expect(written.status).toBe(200);
    expect(await written.text()).toBe("FROM THE WORKER\n");

    const inSubdir = await exec("carol", { command: "pwd && cat upper.txt && exit 3", cwd: "/workspace/out" });
    expect(await inSubdir.json()).toMatchObject({
      status: "failed",
      exitCode: 3,
      stdout: "/workspace/out\nFROM THE WORKER\n",
    });
  });

  it("returns raw output as base64 when asked", async () => {
    const response = await exec("dave", { command: "printf '\\377\\000ok'", encoding: "base64" });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { stdout: string; stderr: string; encoding: string };
    expect(result.encoding).toBe("base64");
    expect([...Buffer.from(result.stdout, "base64")]).toEqual([0xff, 0x00, 0x6f, 0x6b]);
    expect(result.stderr).toBe("");
  });

  it("answers 400 to bad exec bodies and a relative cwd", async () => {
    expect((await exec("erin", {})).status).toBe(400);
    expect((await exec("erin", { command: "true", encoding: "latin1" })).status).toBe(400);
    expect((await exec("erin", { command: "true", cwd: 7 })).status).toBe(400);
    expect(
      (await request("/c/erin/exec", { method: "POST", body: "not json", headers: { "content-type": "text/plain" } }))
        .status,
    ).toBe(400);
    const relative = await exec("erin", { command: "true", cwd: "workspace" });
    expect(relative.status).toBe(400);
    expect(((await relative.json()) as { error: string }).error).toMatch(/cwd/);
  });
});

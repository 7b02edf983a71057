/**
 * Bounded output on container-shell: a real computerd under the local
 * container host prints more than the limits; the result keeps the tail and
 * the Durable Object saves the whole stream in its workspace.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { WORKSPACE_INSTANCE } from "../../src/workspace/client.js";
import type { Workspace } from "../../src/workspace/workspace.worker.js";
import type { ContainerWorkspaceObject } from "./main.worker.js";

type ContainerStub = DurableObjectStub<ContainerWorkspaceObject>;

async function inContainerWorkspace(body: (workspace: Workspace) => Promise<void>): Promise<void> {
  const namespace = env.CONTAINER_WORKSPACE as unknown as DurableObjectNamespace<ContainerWorkspaceObject>;
  const stub: ContainerStub = namespace.get(namespace.newUniqueId());
  await stub.connectTo(inject("containerHost"));
  const name = await runInDurableObject(stub, async (instance: ContainerWorkspaceObject, state) => {
    const workspace = (instance as unknown as Record<typeof WORKSPACE_INSTANCE, Workspace>)[WORKSPACE_INSTANCE];
    await body(workspace);
    return state.id.toString();
  });
  const stopped = await fetch(`${inject("containerHost")}/v1/containers/${name}/stop`, { method: "POST" });
  expect(stopped.status).toBe(204);
}

describe("bounded output on container-shell", () => {
  it("keeps the last 2000 lines by default and saves every line", async () => {
    await inContainerWorkspace(async (workspace) => {
      const result = await (await workspace.runtime.exec("seq 1 5000", { encoding: "utf8", id: "seq" })).result();
      const kept = result.stdout.split("\n");
      expect(kept.length).toBe(2001);
      expect(kept[0]).toBe("3001");
      const path = "/.computer/output/container-shell.seq.stdout.log";
      expect(result.truncated).toEqual({
        stdout: { status: "saved", path, totalBytes: 23_893, totalLines: 5000, firstLine: 3001, partialLine: false },
      });
      const saved = await workspace.fs.readFile(path, "utf8");
      expect(saved).toBe(`${Array.from({ length: 5000 }, (_, i) => i + 1).join("\n")}\n`);
    });
  });

  it("keeps 64 KiB of a few MiB on stderr, saved byte for byte in whole chunks", async () => {
    await inContainerWorkspace(async (workspace) => {
      const size = 3 * 1024 * 1024 + 5;
      const result = await (
        await workspace.runtime.exec(`head -c ${size} /dev/zero | tr '\\0' 'z' >&2`, { id: "big" })
      ).result();
      expect(result.exitCode).toBe(0);
      expect(result.stderr.byteLength).toBe(65_536);
      expect(result.stderr.every((byte) => byte === 0x7a)).toBe(true);
      expect(result.truncated?.stderr).toMatchObject({ status: "saved", totalBytes: size, partialLine: true });
      const stat = await workspace.fs.stat("/.computer/output/container-shell.big.stderr.log");
      expect(stat.size).toBe(size);
    });
  });
});

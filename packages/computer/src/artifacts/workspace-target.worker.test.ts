/**
 * `workspaceArtifactsTarget`: the ArtifactsCLITarget that
 * `WorkspaceServiceProxy.getArtifacts()` is to answer, over a real Durable
 * Object stub (`env.WORKSPACE`, a `withWorkspace` object without an
 * Artifacts binding): each call opens the object's Workspace stub over
 * Workers RPC, runs its artifacts CLI and releases the stub.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkspaceObject } from "../../test/main.worker.js";
import { waitFor } from "../../test/wait.js";
import { ArtifactsCLITarget } from "./cli-target.worker.js";
import { type ArtifactsWorkspaceStub, workspaceArtifactsTarget } from "./workspace-target.worker.js";

describe("workspaceArtifactsTarget", () => {
  it("runs the object's Workspace artifacts CLI over RPC and releases the stub after each call", async () => {
    const object = env.WORKSPACE.get(env.WORKSPACE.newUniqueId());
    const target = workspaceArtifactsTarget(
      async () => (await object.__getWorkspaceStub()) as unknown as ArtifactsWorkspaceStub,
    );
    expect(target).toBeInstanceOf(ArtifactsCLITarget);
    expect(await target.cli({ argv: ["repo", "list"] })).toEqual({
      stdout: "",
      stderr: "artifacts repo list: Workspace Artifacts binding is not configured\n",
      exitCode: 1,
    });
    const help = await target.cli({ argv: ["--help"] });
    expect(help).toMatchObject({ exitCode: 0, stderr: "", stdout: expect.stringMatching(/^usage: artifacts/) });
    await runInDurableObject(object as DurableObjectStub<WorkspaceObject>, async (instance: WorkspaceObject) => {
      await waitFor(() => instance.stubs.every((stub) => stub.disposed), "the object to see the releases");
      expect(instance.stubs).toHaveLength(2);
    });
  });

  it("releases the stub when the CLI call throws", async () => {
    let disposed = 0;
    const target = workspaceArtifactsTarget(async () => ({
      artifacts: {
        cli: async () => {
          throw new Error("host gone");
        },
      },
      [Symbol.dispose]: () => void disposed++,
    }));
    await expect(target.cli({ argv: [] })).rejects.toThrow("host gone");
    expect(disposed).toBe(1);
  });
});

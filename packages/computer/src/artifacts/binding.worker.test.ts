/**
 * The binding behind a real Workers RPC hop: `exports.ArtifactsService`
 * (test/main.worker.ts) is a WorkerEntrypoint implementing `Artifacts`, so
 * what the client holds is a stub that answers every property, errors
 * cross as `ArtifactsError`s, and the handle's token methods are stubs too.
 * The callee's NOT_FOUND shows up in workerd's log as an uncaught exception;
 * that is the binding's way of saying "missing", and the client passes it on.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../test/workspace-harness.worker.js";
import { createArtifact } from "./index.js";

describe("Artifacts as a Workers RPC stub", () => {
  it("is accepted as it is: NOT_FOUND crosses with its code; tokens go through the handle", async () => {
    const binding: Artifacts = exports.ArtifactsService;
    // Only `then`: any other property of an RPC promise is a pipelined call of its own, rejecting unobserved.
    const miss = await binding.get("rpc-nope").then(
      () => null,
      (error: unknown) => error,
    );
    expect(miss).toMatchObject({ name: "ArtifactsError", code: "NOT_FOUND" });
    const s1 = createArtifact(binding, "rpc");
    await expect(s1.get("site")).rejects.toMatchObject({ name: "ArtifactsError", code: "NOT_FOUND" });
    const created = await s1.create("site", { description: "d" });
    expect(created).toMatchObject({ name: "site", description: "d", token: expect.stringMatching(/^art_/) });
    expect(await s1.get("site")).toMatchObject({ name: "site", remote: "https://artifacts.invalid/git/rpc__site.git" });
    const read = await s1.createToken("site", "read", 600);
    expect((await s1.listTokens("site")).tokens.map(({ scope }) => scope)).toEqual(["write", "read"]);
    expect(await s1.revokeToken("site", read.id)).toBe(true);
    await expect(s1.createToken("gone")).rejects.toMatchObject({ code: "NOT_FOUND" });
    const shared = await s1.cli({ argv: ["share", "site", "--ttl", "1h"] });
    expect(shared.stdout).toMatch(/^https:\/\/x:art_[0-9a-f]{32}@artifacts\.invalid\/git\/rpc__site\.git\n$/);
    expect((await s1.list()).map(({ name }) => name)).toEqual(["site"]);
    expect(await s1.delete("site")).toBe(true);
  });

  it("works as the Workspace's binding, session-scoped by default", async () => {
    await inWorkspace(
      async ({ workspace }) => {
        const created = await workspace.artifacts.cli({ argv: ["create", "app"] });
        expect(created.exitCode).toBe(0);
        expect(JSON.parse(created.stdout)).toMatchObject({
          name: "app",
          remote: expect.stringContaining("/ws__app.git"),
        });
        expect((await workspace.artifacts.cli({ argv: ["repo", "get", "missing"] })).exitCode).toBe(1);
        expect(await exports.ArtifactsService.delete("ws__app")).toBe(true);
      },
      { sessionId: "ws", artifacts: { binding: exports.ArtifactsService } },
    );
  });
});

/**
 * The binding's stand-in, without the Worker: `LocalArtifacts` speaks the
 * binding's interface, and the package's artifacts CLI takes it as it is
 * (as it takes `env.ARTIFACTS`) to import, list, share and revoke — tokens
 * the local Artifacts host then enforces on git requests.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArtifact } from "@cloudflare/computer/artifacts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startArtifactsHost } from "../scripts/artifacts-host.mjs";
import { LocalArtifacts } from "../src/local-artifacts.js";

let host: Awaited<ReturnType<typeof startArtifactsHost>>;
let scratch: string;

beforeAll(async () => {
  host = await startArtifactsHost();
  scratch = mkdtempSync(join(tmpdir(), "artifacts-binding-"));
});
afterAll(async () => {
  await host?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Real git, asynchronously: the host serving it runs in this same process. */
function git(...args: string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd: scratch, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }, (error) =>
      resolve(error ? 1 : 0),
    );
  });
}

describe("LocalArtifacts, the binding's stand-in", () => {
  it("speaks the binding's shapes: get throws NOT_FOUND, tokens hang off the repository handle", async () => {
    const local = new LocalArtifacts(host.url);
    await expect(local.get("nope")).rejects.toMatchObject({ name: "ArtifactsError", code: "NOT_FOUND" });
    const created = await local.create("shapes", { description: "d" });
    expect(created).toMatchObject({
      name: "shapes",
      description: "d",
      defaultBranch: "main",
      token: expect.any(String),
    });
    await expect(local.create("shapes")).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
    await expect(local.create("-bad")).rejects.toMatchObject({ code: "INVALID_REPO_NAME" });
    const repo = await local.get("shapes");
    await expect(repo.createToken("read", 5)).rejects.toMatchObject({ code: "INVALID_TTL" });
    const token = await repo.createToken("read", 120);
    expect(token.scope).toBe("read");
    expect((await repo.listTokens()).tokens.map((t) => t.id)).toContain(token.id);
    expect(await repo.fork("shapes-fork")).toMatchObject({ name: "shapes-fork", token: expect.any(String) });
    const page = await local.list();
    expect(page.repos.map((r) => r.name)).toEqual(expect.arrayContaining(["shapes", "shapes-fork"]));
    expect(page.repos[0]).not.toHaveProperty("remote");
  });

  it("runs the package's artifacts CLI: repo and token verbs, import and revoke enforced by git", async () => {
    const artifacts = createArtifact(new LocalArtifacts(host.url));
    const cli = (...argv: string[]) => artifacts.cli({ argv });
    // Import the starter (a real clone on the host), then share it.
    expect((await cli("repo", "import", "imported", "--url", host.starterUrl)).exitCode).toBe(0);
    const listed = JSON.parse((await cli("repo", "list")).stdout);
    expect(listed).toContainEqual(expect.objectContaining({ name: "imported", source: host.starterUrl }));
    const got = JSON.parse((await cli("repo", "get", "imported")).stdout);
    expect(got.remote).toBe(`${host.url}/repos/imported.git`);
    const url = (await cli("share", "imported", "--ttl", "10m")).stdout.trim();
    expect(await git("clone", "--quiet", url, "imported")).toBe(0);

    // A revoked token stops working.
    const { tokens } = JSON.parse((await cli("token", "list", "imported")).stdout) as { tokens: { id: string }[] };
    expect(tokens.length).toBeGreaterThan(0);
    for (const { id } of tokens) expect((await cli("token", "delete", "imported", id)).exitCode).toBe(0);
    expect(await git("clone", "--quiet", url, "again")).not.toBe(0);

    expect((await cli("repo", "get", "missing")).exitCode).toBe(1);
    expect((await cli("repo", "delete", "imported")).exitCode).toBe(0);
    expect((await cli("repo", "get", "imported")).exitCode).toBe(1);
  });
});

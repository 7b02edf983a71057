/**
 * The shell's `remoteAdd` seam (`remoteAdder`) over a real git client on a
 * real dofs filesystem, answering the original's `{ ok, exists, message }`,
 * and what `artifacts create` makes of each answer.
 */
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { describe, expect, it } from "vitest";
import { remoteAdder } from "../backends/worker-shell/sandbox/commands/artifacts.js";
import { createGitClient } from "../git/index.js";
import { createArtifact, MemoryArtifactsBinding } from "./index.js";

async function workspace() {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  await fs.mkdir("/workspace/app", { recursive: true });
  await fs.mkdir("/workspace/plain", { recursive: true });
  const git = createGitClient().open({ fs });
  await git.cli({ argv: ["init", "-q"], cwd: "/workspace/app" });
  const artifacts = createArtifact(new MemoryArtifactsBinding({ remoteBase: "https://artifacts.test/git" }), "s1");
  return { git, artifacts };
}

describe("the shell's remoteAdd seam", () => {
  it("adds, reports a taken name as exists, replaces with force, and says why otherwise", async () => {
    const ws = await workspace();
    const add = remoteAdder(ws, "/workspace/app", {});
    expect(await add({ name: "origin", url: "https://a.test/1.git" })).toEqual({ ok: true });
    expect(await add({ name: "origin", url: "https://a.test/2.git" })).toEqual({ ok: false, exists: true });
    expect(await add({ name: "origin", url: "https://a.test/3.git", force: true })).toEqual({ ok: true });
    const listed = await ws.git.cli({ argv: ["remote", "-v"], cwd: "/workspace/app" });
    expect(listed.stdout).toContain("https://a.test/3.git");
    const outside = await remoteAdder(ws, "/workspace/plain", {})({ name: "origin", url: "https://a.test/1.git" });
    expect(outside.ok).toBe(false);
    expect(outside.exists).toBeUndefined();
    expect(outside.message).toMatch(/not a git repository/i);
  });

  it("is what artifacts create registers the remote through, and its message reaches stderr", async () => {
    const ws = await workspace();
    const created = await ws.artifacts.cli({
      argv: ["create", "site", "--remote", "origin"],
      remoteAdd: remoteAdder(ws, "/workspace/app", {}),
    });
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ gitRemote: "origin", remoteRegistered: true });
    const taken = await ws.artifacts.cli({
      argv: ["create", "other", "--remote", "origin"],
      remoteAdd: remoteAdder(ws, "/workspace/app", {}),
    });
    expect(taken).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/remote 'origin' already exists.*--force/),
    });
    const outside = await ws.artifacts.cli({
      argv: ["create", "third"],
      remoteAdd: remoteAdder(ws, "/workspace/plain", {}),
    });
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toMatch(/^artifacts create: git remote 'third' not registered: .*not a git repository/i);
  });
});

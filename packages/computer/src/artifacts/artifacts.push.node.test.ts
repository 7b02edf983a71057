/**
 * The artifacts flow end to end: the in-memory binding's repositories are
 * bare repositories behind a real smart-HTTP server that checks tokens, and
 * workspace git pushes to and clones from them with the credentialed URLs
 * the CLI prints (the reference's "artifacts" example).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type GitHttpServer, startGitHttpServer } from "../../test/git/http-server.node.js";
import { git as realGit } from "../../test/git/real-git.node.js";
import { createGitClient } from "../git/index.js";
import { createArtifact, MemoryArtifactsBinding, remoteAddVia } from "./index.js";

let root: string;
let server: GitHttpServer;
let binding: MemoryArtifactsBinding;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "artifacts-"));
  // The server asks the binding whether the Basic password (the token) may read or push this repository.
  server = await startGitHttpServer({
    root,
    authorize: ({ path, password, push }) =>
      binding.authorize(path.split("/")[1]?.replace(/\.git$/, "") ?? "", password, push),
  });
  binding = new MemoryArtifactsBinding({
    remoteBase: server.url,
    onCreate: (name) => void realGit(root, "init", "-q", "--bare", "-b", "main", `${name}.git`),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

it("creates a repository, registers origin, pushes with write and clones with a shared read URL", async () => {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  const git = createGitClient().open({ fs });
  const env = { GIT_AUTHOR_NAME: "Ada", GIT_AUTHOR_EMAIL: "ada@example.com" };
  await fs.mkdir("/workspace/app", { recursive: true });
  await git.cli({ argv: ["init"], cwd: "/workspace/app" });
  await fs.writeFile("/workspace/app/index.html", "<h1>hi</h1>\n");
  await git.cli({ argv: ["add", "."], cwd: "/workspace/app" });
  await git.cli({ argv: ["commit", "-m", "site"], cwd: "/workspace/app", env });

  const artifacts = createArtifact(binding, "s1");
  const remoteAdd = remoteAddVia(git, "/workspace/app");
  const created = await artifacts.cli({ argv: ["create", "site", "--remote", "origin", "--force"], remoteAdd });
  expect(created.exitCode).toBe(0);
  const out = JSON.parse(created.stdout);
  expect(out.remoteRegistered).toBe(true);
  expect((await git.cli({ argv: ["remote", "get-url", "origin"], cwd: "/workspace/app" })).stdout).toBe(
    `${out.credentialedRemote}\n`,
  );
  // The remote exists now: a second create without --force stops at the repository check.
  expect((await artifacts.cli({ argv: ["create", "site", "--remote", "origin"], remoteAdd })).exitCode).toBe(1);

  const push = await git.cli({ argv: ["push", "origin", "main"], cwd: "/workspace/app" });
  expect(push).toMatchObject({ exitCode: 0 });
  expect(realGit(join(root, "s1__site.git"), "log", "--format=%s", "main")).toBe("site\n");

  const shared = await artifacts.cli({ argv: ["share", "site", "--ttl", "1h"] });
  const readUrl = shared.stdout.trim();
  const clone = await git.cli({ argv: ["clone", readUrl, "copy"], cwd: "/workspace" });
  expect(clone.exitCode).toBe(0);
  expect(clone.stderr).toMatch(/^Cloning into '\/workspace\/copy'\.\.\.\n/);
  expect(await fs.readFile("/workspace/copy/index.html", "utf8")).toBe("<h1>hi</h1>\n");

  // A read token cannot push, and no token cannot read.
  await fs.writeFile("/workspace/copy/index.html", "changed\n");
  await git.cli({ argv: ["commit", "-am", "change"], cwd: "/workspace/copy", env });
  expect((await git.cli({ argv: ["push"], cwd: "/workspace/copy" })).exitCode).toBe(1);
  const anonymous = await git.cli({ argv: ["clone", `${server.url}/s1__site.git`, "anon"], cwd: "/workspace" });
  expect(anonymous.exitCode).toBe(1);
});

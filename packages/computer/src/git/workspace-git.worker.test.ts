/**
 * Workspace git inside a Durable Object (workerd, DO SQLite): the opt-in
 * (unset ⇒ ENOTCONFIGURED, which the shell turns into exit 1),
 * the CLI (`docs/git.md`) through `workspace.git.cli`, and the Workspace's
 * artifacts option with its session default.
 */
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../test/workspace-harness.worker.js";
import { MemoryArtifactsBinding } from "../artifacts/index.js";
import { Workspace } from "../workspace/workspace.worker.js";
import { createGitClient, type GitClient } from "./index.js";

describe("workspace.git in workerd", () => {
  it("(32) throws ENOTCONFIGURED without the git option", async () => {
    await inWorkspace(async ({ workspace }) => {
      expect(() => workspace.git).toThrow(expect.objectContaining({ code: "ENOTCONFIGURED" }));
      expect(() => workspace.git).toThrow(/Workspace git is not configured/);
    });
  });

  it("(31, 34) init, add, commit and log through workspace.git.cli on DO SQLite", async () => {
    await inWorkspace(
      async ({ workspace, storage }) => {
        await workspace.fs.mkdir("/workspace");
        const run = (argv: string[], env: Record<string, string> = {}) =>
          workspace.git.cli({ argv, cwd: "/workspace", env });
        expect((await run(["init"])).exitCode).toBe(0);
        await workspace.fs.writeFile("/workspace/a.txt", "hello\n");
        expect((await run(["add", "a.txt"])).exitCode).toBe(0);
        // The default identity makes an unconfigured commit succeed here; see the Node tests for 128.
        const commit = await run(["commit", "-m", "m", "--author", "A <a@b>"]);
        expect(commit.stdout).toMatch(/^\[[0-9a-f]{7}\] m\n$/);
        expect((await run(["log", "--oneline"])).stdout).toBe(`${commit.stdout.slice(1, 8)} m\n`);
        expect((await run(["status"])).stdout).toBe("");
        // A Workspace built with createGitClient() types `git` as the full GitClient: no cast.
        const typed = new Workspace({
          storage,
          git: createGitClient(),
          defaultGitIdentity: { name: "Default Agent", email: "agent@example.com" },
        });
        const git: GitClient = typed.git;
        const [entry] = await git.log({ dir: "/workspace" });
        expect(entry?.committer.name).toBe("Default Agent");
      },
      { git: createGitClient(), defaultGitIdentity: { name: "Default Agent", email: "agent@example.com" } },
    );
  });

  it("createGitClient() is also the original's factory: a function of { ws }, and the git option takes one", async () => {
    await inWorkspace(async ({ workspace, storage }) => {
      await workspace.fs.mkdir("/workspace");
      await workspace.fs.writeFile("/workspace/a.txt", "hello\n");
      const direct = createGitClient()({ ws: workspace, defaultIdentity: { name: "F", email: "f@example.com" } });
      await direct.init({ dir: "/workspace" });
      await direct.add({ dir: "/workspace", paths: ["a.txt"] });
      await direct.commit({ dir: "/workspace", message: "m" });
      expect((await direct.log({ dir: "/workspace" }))[0]?.author.name).toBe("F");

      // A hand-written factory of the original's shape (only a function), as the git option.
      const calls: unknown[] = [];
      const factoryWorkspace = new Workspace({
        storage,
        git: (options) => {
          calls.push(options.ws);
          return createGitClient()(options);
        },
      });
      const log = await factoryWorkspace.git.cli({ argv: ["log", "--format=%an"], cwd: "/workspace" });
      expect(log).toMatchObject({ exitCode: 0, stdout: "F\n" });
      expect(calls).toEqual([factoryWorkspace]);
      expect(() => createGitClient()({ ws: {} as never })).toThrow(/ws must be a Workspace/);
    });
  });

  it("exits 128 without any identity", async () => {
    await inWorkspace(
      async ({ workspace }) => {
        await workspace.git.cli({ argv: ["init"] });
        await workspace.fs.writeFile("/a.txt", "a");
        await workspace.git.cli({ argv: ["add", "."] });
        expect((await workspace.git.cli({ argv: ["commit", "-m", "x"] })).exitCode).toBe(128);
        const env = { GIT_AUTHOR_NAME: "E", GIT_AUTHOR_EMAIL: "e@example.com" };
        expect(await workspace.git.cli({ argv: ["commit", "-m", "x"], env })).toMatchObject({
          stderr: "",
          exitCode: 0,
        });
      },
      { git: createGitClient() },
    );
  });
});

describe("workspace.artifacts", () => {
  it("scopes to the workspace's sessionId by default, and null opts out", async () => {
    const binding = new MemoryArtifactsBinding();
    await inWorkspace(
      async ({ workspace }) => {
        const created = await workspace.artifacts.cli({ argv: ["repo", "create", "foo"] });
        expect(JSON.parse(created.stdout).name).toBe("foo");
        expect([...binding.repos.keys()]).toEqual(["s1__foo"]);
      },
      { sessionId: "s1", artifacts: { binding } },
    );
    await inWorkspace(
      async ({ workspace }) => {
        await workspace.artifacts.cli({ argv: ["repo", "create", "bar"] });
        expect([...binding.repos.keys()]).toEqual(["s1__foo", "bar"]);
      },
      { sessionId: "s1", artifacts: { binding, sessionId: null } },
    );
    await inWorkspace(async ({ workspace }) => {
      await expect(workspace.artifacts.list()).rejects.toMatchObject({
        code: "ENOCONFIG",
        message: expect.stringMatching(/Workspace Artifacts binding is not configured/),
      });
    });
  });
});

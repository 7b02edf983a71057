/**
 * clone, fetch, pull and push against a real smart-HTTP server (`git
 * http-backend` behind Node's http on 127.0.0.1), checked from the server's
 * side with real git; and `file://` remotes inside the workspace.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GitHttpServer, startGitHttpServer } from "../../test/git/http-server.node.js";
import { git as realGit } from "../../test/git/real-git.node.js";
import { createGitClient, type GitClient } from "./index.js";

const ME = { GIT_AUTHOR_NAME: "Ada", GIT_AUTHOR_EMAIL: "ada@example.com" };
let root: string;
let server: GitHttpServer;
let fs: WorkspaceFilesystem;
let git: GitClient;
const run = (argv: string[], cwd = "/workspace") => git.cli({ argv, cwd, env: ME });

/** A bare repository `<name>.git` with `commits` commits made by real git, and its work clone on disk. */
function seed(name: string, commits: number): string {
  const work = join(root, `${name}-work`);
  realGit(root, "init", "-q", "-b", "main", work);
  for (let i = 1; i <= commits; i++) {
    writeFileSync(join(work, "count.txt"), `${i}\n`);
    writeFileSync(join(work, `file${i}.txt`), `file ${i}\n`);
    realGit(work, "add", ".");
    realGit(work, "commit", "-q", "-m", `commit ${i}`);
  }
  realGit(root, "clone", "-q", "--bare", work, join(root, `${name}.git`));
  realGit(work, "remote", "add", "server", join(root, `${name}.git`));
  return work;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "workspace-git-http-"));
  server = await startGitHttpServer({ root });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(async () => {
  fs = new WorkspaceFilesystem(openNodeDatabase());
  git = createGitClient().open({ fs });
  await fs.mkdir("/workspace");
});

describe("over smart HTTP", () => {
  it("clones shallow (depth 1) by default, and the whole history with --depth 0", async () => {
    seed("shallow", 3);
    const shallow = await run(["clone", `${server.url}/shallow.git`]);
    expect(shallow.exitCode).toBe(0);
    expect(shallow.stderr).toMatch(/^Cloning into '\/workspace\/shallow'\.\.\./);
    expect((await run(["log", "--oneline"], "/workspace/shallow")).stdout).toMatch(/^[0-9a-f]{7} commit 3\n$/);
    expect(await fs.readFile("/workspace/shallow/count.txt", "utf8")).toBe("3\n");
    expect((await fs.readFile("/workspace/shallow/.git/shallow", "utf8")).trim()).toMatch(/^[0-9a-f]{40}$/);
    const full = await run(["clone", "--depth", "0", `${server.url}/shallow.git`, "full"]);
    expect(full.exitCode).toBe(0);
    const log = (await run(["log", "--format=%H"], "/workspace/full")).stdout;
    expect(log).toBe(realGit(join(root, "shallow.git"), "log", "--format=%H", "main"));
    expect((await run(["status"], "/workspace/full")).stdout).toBe("");
  });

  it("checks out only the given paths", async () => {
    seed("partial", 3);
    await git.clone({ url: `${server.url}/partial.git`, dir: "/workspace/p", paths: ["file2.txt"] });
    expect(await git.currentBranch({ dir: "/workspace/p" })).toBe("main");
    const names = (await fs.readdir("/workspace/p")).map((entry) => entry.name);
    expect(names).toEqual([".git", "file2.txt"]);
  });

  it("pushes a commit the server's real git accepts and fscks", async () => {
    seed("pushed", 1);
    await run(["clone", `${server.url}/pushed.git`, "app"]);
    await fs.writeFile("/workspace/app/new.txt", "from the workspace\n");
    await run(["add", "new.txt"], "/workspace/app");
    const commit = await run(["commit", "-m", "from workspace"], "/workspace/app");
    const push = await run(["push"], "/workspace/app");
    expect(push.exitCode).toBe(0);
    const bare = join(root, "pushed.git");
    expect(realGit(bare, "log", "-1", "--format=%h %s", "main")).toBe(`${commit.stdout.slice(1, 8)} from workspace\n`);
    expect(realGit(bare, "show", "main:new.txt")).toBe("from the workspace\n");
    realGit(bare, "fsck", "--strict");
  });

  it("fetches and pulls (fast-forward) what real git pushed to the server", async () => {
    const work = seed("pulled", 1);
    await run(["clone", `${server.url}/pulled.git`, "app"]);
    writeFileSync(join(work, "count.txt"), "2\n");
    realGit(work, "commit", "-q", "-am", "second");
    realGit(work, "push", "-q", "server", "main");
    expect((await run(["fetch"], "/workspace/app")).exitCode).toBe(0);
    const remoteHead = (await run(["rev-parse", "origin/main"], "/workspace/app")).stdout;
    expect(remoteHead).toBe(realGit(work, "rev-parse", "HEAD"));
    const pull = await run(["pull"], "/workspace/app");
    expect(pull.stdout).toBe(`Fast-forward to ${remoteHead.slice(0, 7)}\n`);
    expect(await fs.readFile("/workspace/app/count.txt", "utf8")).toBe("2\n");
    expect((await run(["pull"], "/workspace/app")).stdout).toBe("Already up to date.\n");
  });

  it("rejects a non-fast-forward push with exit 1", async () => {
    const work = seed("diverged", 1);
    await run(["clone", `${server.url}/diverged.git`, "app"]);
    writeFileSync(join(work, "count.txt"), "theirs\n");
    realGit(work, "commit", "-q", "-am", "theirs");
    realGit(work, "push", "-q", "server", "main");
    await fs.writeFile("/workspace/app/count.txt", "ours\n");
    await run(["commit", "-am", "ours"], "/workspace/app");
    const push = await run(["push"], "/workspace/app");
    expect(push.exitCode).toBe(1);
    expect(push.stderr).toMatch(/^git push: /);
  });
});

describe("file:// remotes in the workspace", () => {
  it("clones, pushes and pulls between two repositories of the same filesystem", async () => {
    await fs.mkdir("/workspace/origin");
    await run(["init"], "/workspace/origin");
    await fs.writeFile("/workspace/origin/a.txt", "a\n");
    await run(["add", "."], "/workspace/origin");
    await run(["commit", "-m", "first"], "/workspace/origin");
    expect((await run(["clone", "file:///workspace/origin", "copy"])).exitCode).toBe(0);
    expect(await fs.readFile("/workspace/copy/a.txt", "utf8")).toBe("a\n");
    await run(["init", "--bare", "/workspace/shared.git"]);
    await run(["remote", "add", "shared", "file:///workspace/shared.git"], "/workspace/copy");
    expect((await run(["push", "shared", "main"], "/workspace/copy")).exitCode).toBe(0);
    await fs.writeFile("/workspace/origin/a.txt", "b\n");
    await run(["commit", "-am", "second"], "/workspace/origin");
    const pull = await run(["pull"], "/workspace/copy");
    expect(pull.stdout).toMatch(/^Fast-forward to [0-9a-f]{7}\n$/);
    expect(await fs.readFile("/workspace/copy/a.txt", "utf8")).toBe("b\n");
    const pushed = (await fs.readFile("/workspace/shared.git/refs/heads/main", "utf8")).trim();
    expect(pushed).toBe((await run(["rev-parse", "HEAD~1"], "/workspace/copy")).stdout.trim());
  });
});

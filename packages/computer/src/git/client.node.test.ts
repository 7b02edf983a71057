/**
 * The typed `GitClient` (the original's surface) over a real dofs store:
 * its error codes, the options the original has that the differential suite
 * cannot reach (HTTP callbacks and results, `all`/`trackedOnly`, `ours`,
 * `fastForward: false`, `force`, `filepath`, `all` config reads), and the
 * file:// and smart-HTTP fetch/push results, checked against real git.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GitHttpServer, startGitHttpServer } from "../../test/git/http-server.node.js";
import { git as realGit } from "../../test/git/real-git.node.js";
import { createGitClient, type GitClient, GitError } from "./index.js";

const ADA = { name: "Ada", email: "ada@example.com" };
const dir = "/repo";
let fs: WorkspaceFilesystem;
let git: GitClient;

beforeEach(async () => {
  fs = new WorkspaceFilesystem(openNodeDatabase());
  git = createGitClient().open({ fs, defaultIdentity: ADA });
  await fs.mkdir(dir);
  await git.init({ dir });
  await fs.writeFile("/repo/a.txt", "a\n");
  await git.add({ dir, paths: ["a.txt"] });
  await git.commit({ dir, message: "base" });
});

async function failure(run: () => Promise<unknown>): Promise<GitError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitError);
  return error as GitError;
}

describe("errors", () => {
  it("wraps a failure in its operation's code, with the reason as cause", async () => {
    const error = await failure(() => git.log({ dir, ref: "nope" }));
    expect(error.code).toBe("ELOGFAIL");
    expect(error.message).toBe(
      "git log failed: ambiguous argument 'nope': unknown revision or path not in the working tree",
    );
    expect((error.cause as GitError).message).toBe(error.message.slice("git log failed: ".length));
    expect((await failure(() => git.branchDelete({ dir, name: "main" }))).code).toBe("EBRANCHFAIL");
    expect((await failure(() => git.catFile({ dir, oid: "feedbeef" }))).code).toBe("ECATFILEFAIL");
  });

  it("lets the named errors through as they are", async () => {
    expect(await failure(() => git.status({ dir: "/nowhere" }))).toMatchObject({
      name: "NotARepositoryError",
      code: "ENOTAREPO",
      message: "not a git repository: /nowhere",
    });
    expect(await failure(() => git.init({ dir }))).toMatchObject({ code: "EALREADYINIT" });
    expect(await failure(() => git.add({ dir, paths: ["missing"] }))).toMatchObject({
      name: "PathspecNotFoundError",
      code: "EPATHSPEC",
    });
    expect(await failure(() => git.commit({ dir, message: "" }))).toMatchObject({
      code: "EMSG",
      message: "commit message is required",
    });
    const anonymous = createGitClient().open({ fs });
    expect(await failure(() => anonymous.commit({ dir, message: "m", allowEmpty: true }))).toMatchObject({
      code: "EIDENTITY",
    });
  });

  it("refuses a commit with nothing staged unless allowEmpty", async () => {
    expect(await failure(() => git.commit({ dir, message: "again" }))).toMatchObject({
      code: "ECOMMITFAIL",
      message: "git commit failed: nothing to commit, working tree clean",
    });
    expect((await git.commit({ dir, message: "again", allowEmpty: true })).oid).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("staging", () => {
  it("add all stages new, changed and deleted files; trackedOnly leaves new ones out", async () => {
    await fs.writeFile("/repo/b.txt", "b\n");
    await fs.writeFile("/repo/a.txt", "changed\n");
    await git.add({ dir, paths: [], all: true, trackedOnly: true });
    expect(await git.status({ dir })).toEqual([
      { path: "a.txt", index: "M", worktree: " " },
      { path: "b.txt", index: " ", worktree: "?" },
    ]);
    await fs.rm("/repo/a.txt");
    await git.add({ dir, paths: ["ignored because all"], all: true });
    expect(await git.status({ dir })).toEqual([
      { path: "a.txt", index: "D", worktree: " " },
      { path: "b.txt", index: "A", worktree: " " },
    ]);
  });

  it("rm unstages and keeps the file; cached: false deletes it", async () => {
    await git.rm({ dir, paths: ["a.txt"] });
    expect(await fs.readFile("/repo/a.txt", "utf8")).toBe("a\n");
    // One entry per path, as in the original (git would add "?? a.txt").
    expect(await git.status({ dir })).toEqual([{ path: "a.txt", index: "D", worktree: " " }]);
    await git.add({ dir, paths: ["a.txt"] });
    await git.rm({ dir, paths: ["a.txt"], cached: false });
    await expect(fs.stat("/repo/a.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("refs, merge and objects", () => {
  it("merges without fast-forward into a merge commit, and into a branch other than HEAD", async () => {
    await git.branch({ dir, name: "topic", checkout: true });
    await fs.writeFile("/repo/t.txt", "t\n");
    await git.add({ dir, paths: ["t.txt"] });
    const topic = await git.commit({ dir, message: "topic" });
    await git.checkout({ dir, ref: "main" });
    await git.branch({ dir, name: "other" });
    expect(await git.merge({ dir, theirs: "topic", ours: "other" })).toEqual({ oid: topic.oid, fastForward: true });
    expect(await git.currentBranch({ dir })).toBe("main");
    expect(await git.revParse({ dir, ref: "other" })).toBe(topic.oid);
    const merged = await git.merge({ dir, theirs: "topic", fastForward: false, message: "merge topic" });
    expect(merged).toMatchObject({ mergeCommit: true, tree: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await git.show({ dir, ref: "HEAD" })).parent).toEqual([
      await git.revParse({ dir, ref: "HEAD^" }),
      topic.oid,
    ]);
  });

  it("updateRef refuses to overwrite without force; currentBranch is undefined when detached", async () => {
    const head = await git.revParse({ dir, ref: "HEAD" });
    expect((await failure(() => git.updateRef({ dir, ref: "refs/heads/main", value: head }))).code).toBe(
      "EUPDATEREFFAIL",
    );
    await git.updateRef({ dir, ref: "refs/heads/main", value: head, force: true });
    await git.checkout({ dir, ref: head });
    expect(await git.currentBranch({ dir })).toBeUndefined();
  });

  it("catFile reads a path inside a tree, and configGet all reads every value", async () => {
    const tree = (await git.show({ dir, ref: "HEAD" })).tree;
    const file = await git.catFile({ dir, oid: tree, filepath: "a.txt" });
    expect(new TextDecoder().decode(file.bytes)).toBe("a\n");
    expect(file.type).toBe("blob");
    await git.configSet({ dir, path: "remote.origin.fetch", value: "+refs/heads/a:refs/remotes/origin/a" });
    await git.configSet({
      dir,
      path: "remote.origin.fetch",
      value: "+refs/heads/b:refs/remotes/origin/b",
      append: true,
    });
    expect(await git.configGet({ dir, path: "remote.origin.fetch", all: true })).toEqual([
      "+refs/heads/a:refs/remotes/origin/a",
      "+refs/heads/b:refs/remotes/origin/b",
    ]);
    expect(await git.configGet({ dir, path: "nope.nope", all: true })).toEqual([]);
  });
});

describe("file:// remotes", () => {
  it("fetch and push return the original's result shapes", async () => {
    await fs.mkdir("/bare");
    await git.init({ dir: "/bare", bare: true });
    await git.remoteAdd({ dir, name: "origin", url: "file:///bare" });
    expect(await git.push({ dir })).toEqual({ ok: true, error: null, refs: { "refs/heads/main": { ok: true } } });
    expect(await git.fetch({ dir, ref: "main" })).toEqual({
      defaultBranch: "refs/heads/main",
      fetchHead: await git.revParse({ dir, ref: "HEAD" }),
    });
    expect(await git.remoteList({ dir })).toEqual([{ name: "origin", url: "file:///bare" }]);
  });
});

describe("smart HTTP", () => {
  let root: string;
  let server: GitHttpServer;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "workspace-git-client-"));
    server = await startGitHttpServer({ root });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("fetches and pushes by URL with progress and message callbacks, and real git sees the push", async () => {
    const work = join(root, "seed-work");
    realGit(root, "init", "-q", "-b", "main", work);
    writeFileSync(join(work, "s.txt"), "seed\n");
    realGit(work, "add", ".");
    realGit(work, "commit", "-q", "-m", "seed");
    realGit(root, "clone", "-q", "--bare", work, join(root, "seed.git"));
    const url = `${server.url}/seed.git`;
    const tip = realGit(work, "rev-parse", "HEAD").trim();

    await git.clone({ url, dir: "/clone", depth: 0 });
    expect(await git.log({ dir: "/clone" })).toMatchObject([{ oid: tip, message: "seed\n" }]);

    // isomorphic-git records fetched refs under the remote's refspec, so the name must be configured too.
    await git.remoteAdd({ dir, name: "origin", url: "https://example.invalid/elsewhere.git" });
    const phases: string[] = [];
    const fetched = await git.fetch({ dir, url, ref: "main", onProgress: (event) => phases.push(event.phase) });
    expect(fetched).toEqual({ defaultBranch: "refs/heads/main", fetchHead: tip });

    const messages: string[] = [];
    await fs.writeFile("/clone/n.txt", "new\n");
    await git.add({ dir: "/clone", paths: ["n.txt"] });
    const pushed = await git.commit({ dir: "/clone", message: "from the workspace" });
    const result = await git.push({ dir: "/clone", url, onMessage: (line) => messages.push(line) });
    expect(result).toEqual({ ok: true, error: null, refs: { "refs/heads/main": { ok: true } } });
    expect(realGit(join(root, "seed.git"), "rev-parse", "main").trim()).toBe(pushed.oid);
    expect(phases.length).toBeGreaterThan(0);
  });

  it("a rejected push is EPUSHFAIL", async () => {
    const url = `${server.url}/seed.git`;
    await git.remoteAdd({ dir, name: "origin", url });
    const error = await failure(() => git.push({ dir, ref: "main" }));
    expect(error.code).toBe("EPUSHFAIL");
    expect(error.message).toMatch(/^git push failed: /);
  });
});

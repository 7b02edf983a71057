/**
 * The argv CLI over a real dofs store (better-sqlite3): init/add/commit/log,
 * transports, identity (`docs/git.md`), exit codes, and the formats the CLI prints.
 */
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { beforeEach, describe, expect, it } from "vitest";
import { createGitClient, type GitClient } from "./index.js";

let fs: WorkspaceFilesystem;
let git: GitClient;
const ME = { GIT_AUTHOR_NAME: "Ada", GIT_AUTHOR_EMAIL: "ada@example.com" };

beforeEach(async () => {
  fs = new WorkspaceFilesystem(openNodeDatabase());
  git = createGitClient().open({ fs });
  await fs.mkdir("/workspace");
});

const run = (argv: string[], env: Record<string, string> = {}, cwd = "/workspace") => git.cli({ argv, cwd, env });

describe("init, add, commit, log", () => {
  it("commits with --author and lists the commit in log --oneline", async () => {
    expect((await run(["init"])).stdout).toBe("Initialized empty Git repository in /workspace/.git/\n");
    await fs.writeFile("/workspace/a.txt", "hello\n");
    expect(await run(["add", "a.txt"])).toMatchObject({ exitCode: 0 });
    const commit = await run(["commit", "-m", "m", "--author", "A <a@b>"]);
    expect(commit).toMatchObject({ exitCode: 0, stderr: "" });
    const match = /^\[([0-9a-f]{7})\] m\n$/.exec(commit.stdout);
    expect(match).not.toBeNull();
    const log = await run(["log", "--oneline"]);
    expect(log).toEqual({ stdout: `${match?.[1]} m\n`, stderr: "", exitCode: 0 });
  });
});

describe("forms the original accepts (issue 30's first list)", () => {
  it("log -<n> is --max-count, reset HEAD only unstages, remote lists by name", async () => {
    await run(["init"]);
    await fs.writeFile("/workspace/a.txt", "1\n");
    await run(["add", "a.txt"]);
    await run(["commit", "-m", "one"], ME);
    await fs.writeFile("/workspace/a.txt", "2\n");
    await run(["add", "a.txt"]);
    await run(["commit", "-m", "two"], ME);
    const last = await run(["log", "-1", "--oneline"]);
    expect(last).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^[0-9a-f]{7} two\n$/) });
    await fs.writeFile("/workspace/a.txt", "3\n");
    await run(["add", "a.txt"]);
    expect((await run(["status", "--porcelain"])).stdout).toBe("M  a.txt\n");
    expect(await run(["reset", "HEAD"])).toMatchObject({ exitCode: 0 });
    expect((await run(["status", "--porcelain"])).stdout).toBe(" M a.txt\n");
    // Moving HEAD elsewhere without --hard is still refused.
    expect((await run(["reset", "HEAD~1"])).exitCode).toBe(129);
    await run(["remote", "add", "zeta", "https://example.com/z.git"]);
    await run(["remote", "add", "alpha", "https://example.com/a.git"]);
    expect((await run(["remote"])).stdout).toBe("alpha\nzeta\n");
  });
});

describe("transports, unknown subcommands, bad flags", () => {
  it("refuses ssh:// and scp-like URLs as an unsupported transport", async () => {
    for (const url of ["ssh://git@example.com/r.git", "git@example.com:r.git", "git://example.com/r.git"]) {
      const result = await run(["clone", url]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^git clone: unsupported transport/);
    }
    expect(await fs.readdir("/workspace")).toEqual([]);
  });

  it("exits 1 for an unknown subcommand and 129 for a bad flag", async () => {
    expect(await run(["frobnicate"])).toEqual({
      stdout: "",
      stderr: "git: 'frobnicate' is not a supported workspace git command. See 'git help'.\n",
      exitCode: 1,
    });
    await run(["init"]);
    const bad = await run(["status", "--bogus"]);
    expect(bad.exitCode).toBe(129);
    expect(bad.stderr).toMatch(/^git status: unknown option 'bogus'/);
    expect((await run(["commit", "-Z"])).exitCode).toBe(129);
  });

  it("prints help with no arguments (0), the version, and allows one -C", async () => {
    expect(await run([])).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^usage: git/) });
    expect((await run(["--version"])).stdout).toBe("git version 0.0.0 (@cloudflare/computer)\n");
    await fs.mkdir("/workspace/sub");
    expect((await git.cli({ argv: ["-C", "/workspace/sub", "init"] })).exitCode).toBe(0);
    expect((await git.cli({ argv: ["-C", "/workspace", "-C", "sub", "status"] })).exitCode).toBe(129);
  });
});

describe("identity", () => {
  it("exits 128 without an identity and commits with GIT_AUTHOR_* in env", async () => {
    await run(["init"]);
    await fs.writeFile("/workspace/a.txt", "a\n");
    await run(["add", "."]);
    const missing = await run(["commit", "-m", "first"]);
    expect(missing.exitCode).toBe(128);
    expect(missing.stderr).toMatch(/author identity unknown/);
    const ok = await run(["commit", "-m", "first"], ME);
    expect(ok.exitCode).toBe(0);
    const [entry] = await git.log({ dir: "/workspace" });
    expect(entry?.author).toMatchObject({ name: "Ada", email: "ada@example.com" });
    expect(entry?.committer).toMatchObject({ name: "Ada", email: "ada@example.com" });
  });

  it("resolves explicit > env > .git/config > defaultIdentity", async () => {
    const withDefault = createGitClient().open({ fs, defaultIdentity: { name: "Default", email: "d@example.com" } });
    await withDefault.init({ dir: "/workspace" });
    const commitAs = async (env: Record<string, string>) => {
      await fs.writeFile("/workspace/a.txt", `${Math.random()}\n`);
      await withDefault.add({ dir: "/workspace", paths: ["."] });
      await withDefault.commit({ dir: "/workspace", message: "x", env });
      return (await withDefault.log({ dir: "/workspace", depth: 1 }))[0]?.author.name;
    };
    expect(await commitAs({})).toBe("Default");
    await withDefault.configSet({ dir: "/workspace", path: "user.name", value: "Config" });
    await withDefault.configSet({ dir: "/workspace", path: "user.email", value: "c@example.com" });
    expect(await commitAs({})).toBe("Config");
    expect(await commitAs(ME)).toBe("Ada");
  });
});

describe("exit codes and outputs", () => {
  it("is 128 outside a repository, for a second init, and for paths outside the repository", async () => {
    expect((await run(["status"])).exitCode).toBe(128);
    expect((await run(["status"])).stderr).toMatch(/^git status: not a git repository/);
    await run(["init"]);
    expect((await run(["init"])).exitCode).toBe(128);
    expect((await run(["add", "/etc/passwd"])).exitCode).toBe(128);
    expect((await run(["add", "nope.txt"])).exitCode).toBe(128);
  });

  it("reports a missing config key with exit 1, and clean needs -f unless -n", async () => {
    await run(["init"]);
    expect(await run(["config", "user.name"])).toEqual({ stdout: "", stderr: "", exitCode: 1 });
    await run(["config", "user.name", "Ada"]);
    expect((await run(["config", "user.name"])).stdout).toBe("Ada\n");
    await fs.writeFile("/workspace/junk.txt", "x");
    expect((await run(["clean"])).exitCode).toBe(128);
    expect((await run(["clean", "-n"])).stdout).toBe("Would remove junk.txt\n");
    expect((await run(["clean", "-f"])).stdout).toBe("Removing junk.txt\n");
    expect(await fs.readdir("/workspace")).toHaveLength(1);
  });

  it("rejects reset --soft and --mixed with 129", async () => {
    await run(["init"]);
    expect((await run(["reset", "--soft", "HEAD"])).exitCode).toBe(129);
    expect((await run(["reset", "--mixed"])).exitCode).toBe(129);
  });

  it("merges: already up to date, fast-forward, merge commit", async () => {
    await run(["init"]);
    await fs.writeFile("/workspace/a.txt", "a\n");
    await run(["add", "."]);
    await run(["commit", "-m", "base"], ME);
    await run(["branch", "feature"]);
    expect((await run(["merge", "feature"])).stdout).toBe("Already up to date.\n");
    await run(["checkout", "feature"]);
    await fs.writeFile("/workspace/b.txt", "b\n");
    await run(["add", "b.txt"]);
    const feature = await run(["commit", "-m", "feature"], ME);
    await run(["checkout", "main"]);
    expect(await fs.readdir("/workspace")).toHaveLength(2); // .git, a.txt: b.txt is absent on main
    const ff = await run(["merge", "feature"], ME);
    expect(ff.stdout).toBe(`Fast-forward to ${feature.stdout.slice(1, 8)}\n`);
    expect(await fs.readFile("/workspace/b.txt", "utf8")).toBe("b\n");
    await run(["checkout", "-b", "side", "HEAD~1"]);
    await fs.writeFile("/workspace/c.txt", "c\n");
    await run(["add", "c.txt"]);
    await run(["commit", "-m", "side"], ME);
    await run(["checkout", "main"]);
    const merged = await run(["merge", "side"], ME);
    expect(merged.stdout).toMatch(/^Merge commit [0-9a-f]{7}\n$/);
    expect(await fs.readFile("/workspace/c.txt", "utf8")).toBe("c\n");
  });

  it("resolves ^, ~N, ^N and short oids", async () => {
    await run(["init"]);
    for (const n of [1, 2, 3]) {
      await fs.writeFile("/workspace/a.txt", `${n}\n`);
      await run(["add", "."]);
      await run(["commit", "-m", `c${n}`], ME);
    }
    const log = (await run(["log", "--format=%H"])).stdout.trim().split("\n");
    expect((await run(["rev-parse", "HEAD~2"])).stdout.trim()).toBe(log[2]);
    expect((await run(["rev-parse", "HEAD^^"])).stdout.trim()).toBe(log[2]);
    expect((await run(["rev-parse", "HEAD^1"])).stdout.trim()).toBe(log[1]);
    expect((await run(["rev-parse", (log[0] ?? "").slice(0, 8)])).stdout.trim()).toBe(log[0]);
    expect((await run(["rev-parse", "HEAD~5"])).exitCode).toBe(128);
  });
});

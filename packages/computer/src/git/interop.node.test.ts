/**
 * Real-git interoperability, both ways: what workspace git writes passes
 * `git fsck --strict` and reads the same in real git once materialized to
 * disk; what real git writes (copied into the dofs store) reads the same in
 * workspace git.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingest, materialize } from "../../test/git/materialize.node.js";
import { git as realGit } from "../../test/git/real-git.node.js";
import { createGitClient, type GitClient } from "./index.js";

let fs: WorkspaceFilesystem;
let git: GitClient;
let disk: string;
const ME = { GIT_AUTHOR_NAME: "Ada", GIT_AUTHOR_EMAIL: "ada@example.com" };
const run = (...argv: string[]) => git.cli({ argv, cwd: "/repo", env: ME });

beforeEach(async () => {
  fs = new WorkspaceFilesystem(openNodeDatabase());
  git = createGitClient().open({ fs });
  disk = mkdtempSync(join(tmpdir(), "workspace-git-"));
});
afterEach(() => rmSync(disk, { recursive: true, force: true }));

async function buildHistory(): Promise<void> {
  await fs.mkdir("/repo");
  await run("init");
  await fs.mkdir("/repo/src/deep", { recursive: true });
  await fs.writeFile("/repo/README.md", "# demo\n");
  await fs.writeFile("/repo/src/main.ts", "export const a = 1;\n");
  await fs.writeFile("/repo/src/deep/data.bin", new Uint8Array([0, 1, 2, 255]));
  await fs.writeFile("/repo/run.sh", "#!/bin/sh\necho hi\n", { mode: 0o755 });
  await fs.symlink("README.md", "/repo/link");
  await fs.writeFile("/repo/.gitignore", "*.log\n");
  await fs.writeFile("/repo/debug.log", "ignored\n");
  expect((await run("add", ".")).exitCode).toBe(0);
  expect((await run("commit", "-m", "first", "-m", "body line")).exitCode).toBe(0);
  await fs.writeFile("/repo/src/main.ts", "export const a = 2;\nexport const b = 3;\n");
  await fs.rm("/repo/README.md");
  await run("add", "-A");
  expect((await run("commit", "-m", "second")).exitCode).toBe(0);
  await run("tag", "v1");
}

describe("workspace git → real git", () => {
  it("writes a repository that passes git fsck --strict and logs the same", async () => {
    await buildHistory();
    await materialize(fs, "/repo", disk);
    expect(realGit(disk, "fsck", "--strict", "--no-dangling")).toBe("");
    const ours = (await run("log", "--format=%H %an <%ae> %s")).stdout;
    expect(realGit(disk, "log", "--format=%H %an <%ae> %s")).toBe(ours);
    expect(ours.split("\n")).toHaveLength(3);
    expect(realGit(disk, "ls-tree", "-r", "HEAD")).toBe((await run("ls-tree", "-r", "HEAD")).stdout);
    expect(realGit(disk, "rev-parse", "v1")).toBe((await run("rev-parse", "v1")).stdout);
    expect(realGit(disk, "status", "--porcelain=v2")).toBe("");
    expect((await run("status")).stdout).toBe("");
  });

  it("shows the same status (porcelain v1 and v2) and diff for a dirty tree", async () => {
    await buildHistory();
    await fs.writeFile("/repo/src/main.ts", "export const a = 2;\nexport const b = 4;\n"); // modified, unstaged
    await fs.writeFile("/repo/staged.txt", "new\n");
    await run("add", "staged.txt"); // added
    await fs.writeFile("/repo/staged.txt", "new\nand changed\n"); // AM
    await fs.rm("/repo/run.sh"); // deleted, unstaged
    await fs.mkdir("/repo/fresh/inner", { recursive: true });
    await fs.writeFile("/repo/fresh/inner/x.txt", "x\n"); // untracked directory → "fresh/"
    await fs.writeFile("/repo/loose.txt", "loose\n");
    await fs.chmod("/repo/src/deep/data.bin", 0o755); // mode change
    await materialize(fs, "/repo", disk);
    expect((await run("status", "--porcelain")).stdout).toBe(realGit(disk, "status", "--porcelain"));
    expect((await run("status", "--porcelain=v2")).stdout).toBe(realGit(disk, "status", "--porcelain=v2"));
    expect((await run("status", "-uall", "--porcelain")).stdout).toBe(realGit(disk, "status", "-uall", "--porcelain"));
    expect((await run("diff")).stdout).toBe(realGit(disk, "diff"));
    expect((await run("diff", "--cached")).stdout).toBe(realGit(disk, "diff", "--cached"));
    expect((await run("diff", "HEAD~1", "HEAD")).stdout).toBe(realGit(disk, "diff", "HEAD~1", "HEAD"));
    expect((await run("diff", "--numstat", "HEAD~1", "HEAD")).stdout).toBe(
      realGit(disk, "diff", "--numstat", "HEAD~1", "HEAD"),
    );
  });
});

describe("real git → workspace git", () => {
  it("reads log, status, show and files of a repository made by real git", async () => {
    realGit(disk, "init", "-q", "-b", "main");
    mkdirSync(join(disk, "lib"));
    writeFileSync(join(disk, "lib", "util.js"), "module.exports = 1;\n");
    writeFileSync(join(disk, "tool"), "#!/bin/sh\n");
    chmodSync(join(disk, "tool"), 0o755);
    symlinkSync("tool", join(disk, "alias"));
    realGit(disk, "add", ".");
    realGit(disk, "commit", "-q", "-m", "one");
    writeFileSync(join(disk, "lib", "util.js"), "module.exports = 2;\n");
    realGit(disk, "commit", "-q", "-am", "two");
    realGit(disk, "gc", "-q"); // packed objects and packed refs too
    writeFileSync(join(disk, "lib", "util.js"), "module.exports = 3;\n");
    writeFileSync(join(disk, "new.txt"), "n\n");
    await ingest(disk, fs, "/repo");
    expect((await run("log", "--format=%H %s")).stdout).toBe(realGit(disk, "log", "--format=%H %s"));
    expect((await run("status", "--porcelain=v2")).stdout).toBe(realGit(disk, "status", "--porcelain=v2"));
    expect((await run("diff")).stdout).toBe(realGit(disk, "diff"));
    const show = (await run("show", "HEAD")).stdout;
    expect(show).toContain(realGit(disk, "show", "--format=", "HEAD"));
    expect(show).toMatch(/^commit [0-9a-f]{40}\nAuthor: Real Git <real@example.com>\n/);
    expect((await run("show", "HEAD~1:lib/util.js")).stdout).toBe("module.exports = 1;\n");
    expect((await run("cat-file", "-p", "HEAD")).stdout).toBe(realGit(disk, "cat-file", "-p", "HEAD"));
    expect((await run("cat-file", "-p", "HEAD^{tree}".replace("^{tree}", ":"))).exitCode).toBe(0);
  });
});

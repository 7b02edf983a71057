/**
 * Differential tests of `@cloudflare/computer/git` (issue 19 row 11): the
 * same scenario through the published `@cloudflare/computer@0.2.1`
 * (`computer-reference/git`) and ours, each package's `createGitClient()`
 * on its own `Workspace` in a fresh Durable Object with real SQLite.
 *
 * Every step's outcome is compared:
 * - a value by the original's fields: ours must have each of them, equal
 *   (extra fields of ours, our additions, are left out of the comparison);
 * - an error by its `code` and `message`. For the operation codes
 *   (`ELOGFAIL`, …) the message is `git <verb> failed: <reason>` on both
 *   sides, and the reason is each engine's own words, so only the code and
 *   the `git <verb> failed: ` part must match.
 *
 * The original reaches its workspace through `ws.provider()` and the
 * optional peer `@platformatic/vfs`, which this repository does not install
 * (it would change the lockfile); it runs here on its own test seam,
 * `createGitClient({ adapter })`, with `providerFs` below: the provider's
 * promise methods as isomorphic-git's `fs.promises`, nothing more.
 *
 * Commits carry fixed times, so both sides write the same objects and every
 * oid is compared. A deliberate difference is listed in `differences` with
 * its reason (and in docs/migration.md); the test asserts it still differs.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace, type SQLiteWorkspaceProvider } from "computer-reference";
import * as referenceGit from "computer-reference/git";
import { type GitClient, createGitClient as referenceCreateGitClient } from "computer-reference/git";
import { describe, expect, it } from "vitest";
import * as oursGit from "../../src/git/index.js";
import { createGitClient } from "../../src/git/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { ADA, at, type GitWorld, present, randomScenario, type Scenario } from "./git-world.js";
import { referenceStorage } from "./main.worker.js";
import { mismatches as listedMismatches, type Outcome, type Settled, trace } from "./trace.js";

/** `ours on a provider`: our client in the original's form, `{ ws }` with only `provider()` (the original's workspace's). */
type Side = "reference" | "ours" | "ours on a provider";

const IDENTITY = { defaultGitIdentity: ADA };

/** The original's provider as isomorphic-git's fs: its own async methods, plus `rm` (which it lacks) built on them. */
function providerFs(provider: SQLiteWorkspaceProvider): Promise<{ promises: object }> {
  const rm = async (path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> => {
    let stat: Awaited<ReturnType<typeof provider.lstat>>;
    try {
      stat = await provider.lstat(path);
    } catch (error) {
      if (options.force && (error as { code?: string }).code === "ENOENT") return;
      throw error;
    }
    if (!stat.isDirectory()) return provider.unlink(path);
    if (options.recursive) {
      for (const name of (await provider.readdir(path)) as string[]) await rm(`${path}/${name}`, options);
    }
    await provider.rmdir(path);
  };
  // Every method async: a synchronous throw must reach isomorphic-git as a rejection (init hangs otherwise).
  const promises = {
    readFile: async (path: string, options?: { encoding?: BufferEncoding }) => provider.readFile(path, options),
    writeFile: async (path: string, data: string | Uint8Array, options?: { mode?: number }) =>
      provider.writeFile(path, typeof data === "string" ? data : Buffer.from(data), options),
    mkdir: async (path: string, options?: { recursive?: boolean }) => provider.mkdir(path, options),
    rmdir: async (path: string) => provider.rmdir(path),
    unlink: async (path: string) => provider.unlink(path),
    rm,
    stat: async (path: string) => provider.stat(path),
    lstat: async (path: string) => provider.lstat(path),
    readdir: async (path: string) => provider.readdir(path),
    readlink: async (path: string) => provider.readlink(path),
    symlink: async (target: string, path: string) => provider.symlink(target, path),
    chmod: async (path: string, mode: number) => provider.chmodSync(path, mode),
  };
  return Promise.resolve({ promises });
}

async function run(side: Side, scenario: Scenario, withIdentity: boolean): Promise<Outcome[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const identity = withIdentity ? IDENTITY : {};
    const storage = referenceStorage(state.storage);
    let world: GitWorld;
    if (side === "ours") {
      const workspace = new Workspace({ storage: state.storage, git: createGitClient(), ...identity });
      world = { git: workspace.git as unknown as GitClient, fs: workspace.fs as unknown as GitWorld["fs"] };
    } else {
      const git = side === "reference" ? referenceCreateGitClient({ adapter: providerFs }) : undefined;
      const workspace = new ReferenceWorkspace({ storage, ...(git ? { git } : {}), ...identity });
      const client = git
        ? workspace.git
        : createGitClient()({
            ws: { provider: () => workspace.provider() },
            ...(withIdentity ? { defaultIdentity: ADA } : {}),
          });
      world = { git: client as unknown as GitClient, fs: workspace.fs as unknown as GitWorld["fs"] };
    }
    await world.fs.mkdir("/repo", { recursive: true });
    return trace((step) => scenario(world, step));
  });
}

const scenarios: Record<string, Scenario> = {
  "init, add, commit, status and log": async ({ git, fs }, step) => {
    const dir = "/repo";
    await step("init", () => git.init({ dir }));
    await fs.writeFile("/repo/a.txt", "one\ntwo\n");
    await fs.mkdir("/repo/src");
    await fs.writeFile("/repo/src/b.txt", "bee\n");
    await step("status of a new repository", () => git.status({ dir }));
    await step("add a.txt", () => git.add({ dir, paths: ["a.txt"] }));
    await step("status after add", () => git.status({ dir }));
    await step("add nothing", () => git.add({ dir, paths: [] }));
    await step("commit", () => git.commit({ dir, message: "first\n", author: at(1_700_000_000) }));
    await step("status after commit", () => git.status({ dir }));
    await step("log", () => git.log({ dir }));
    await step("show HEAD", () => git.show({ dir, ref: "HEAD" }));
    await step("revParse HEAD", () => git.revParse({ dir, ref: "HEAD" }));
    await step("currentBranch", () => git.currentBranch({ dir }));
    await step("currentBranch fullname", () => git.currentBranch({ dir, fullname: true }));
    await step("lsFiles", () => git.lsFiles({ dir }));
    const tree = await step("lsTree HEAD", () => git.lsTree({ dir, ref: "HEAD" }));
    const blob = tree?.find((entry) => entry.path === "a.txt")?.oid ?? "";
    await step("catFile the blob", () => git.catFile({ dir, oid: blob }));
    await step("hashObject", () => git.hashObject({ content: "one\ntwo\n" }));
    await fs.writeFile("/repo/a.txt", "one\n2\n");
    await step("status after an edit", () => git.status({ dir }));
    await step("diffSummary HEAD to the work tree", () => git.diffSummary({ dir, paths: ["a.txt"] }));
    await step("add all", () => git.add({ dir, paths: [], all: true }));
    await step("status after add all", () => git.status({ dir }));
    await step("commit second", () => git.commit({ dir, message: "second\n", author: at(1_700_000_100) }));
    await step("log depth 1", () => git.log({ dir, depth: 1 }));
    await step("log from HEAD~1", () => git.log({ dir, ref: "HEAD~1" }));
    await step("diffSummary HEAD~1 to HEAD", () => git.diffSummary({ dir, ref: "HEAD~1", to: "HEAD" }));
    await step("lsFiles at HEAD~1", () => git.lsFiles({ dir, ref: "HEAD~1" }));
  },

  "branches, tags, checkout and merge": async ({ git, fs }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await fs.writeFile("/repo/a.txt", "a\n");
    await git.add({ dir, paths: ["a.txt"] });
    await git.commit({ dir, message: "base\n", author: at(1_700_000_000) });
    await step("branch feature", () => git.branch({ dir, name: "feature" }));
    await step("branchList", () => git.branchList({ dir }));
    await step("checkout feature", () => git.checkout({ dir, ref: "feature" }));
    await step("currentBranch on feature", () => git.currentBranch({ dir }));
    await fs.writeFile("/repo/f.txt", "feature\n");
    await git.add({ dir, paths: ["f.txt"] });
    await step("commit on feature", () => git.commit({ dir, message: "feature\n", author: at(1_700_000_200) }));
    await step("checkout main", () => git.checkout({ dir, ref: "main" }));
    await step("f.txt is gone on main", () => present(fs, "/repo/f.txt"));
    await step("merge feature (fast-forward)", () => git.merge({ dir, theirs: "feature" }));
    await step("merge feature again", () => git.merge({ dir, theirs: "feature" }));
    await step("log after the merge", () => git.log({ dir }));
    await step("tag v1", () => git.tag({ dir, name: "v1" }));
    await step("tag v0 at HEAD~1", () => git.tag({ dir, name: "v0", object: "HEAD~1" }));
    await step("tagList", () => git.tagList({ dir }));
    await step("revParse v0", () => git.revParse({ dir, ref: "v0" }));
    await step("tagDelete v0", () => git.tagDelete({ dir, name: "v0" }));
    await step("tagList after delete", () => git.tagList({ dir }));
    await step("tagDelete a missing tag", () => git.tagDelete({ dir, name: "nope" }));
    await step("branch with startPoint and checkout", () =>
      git.branch({ dir, name: "old", startPoint: "HEAD~1", checkout: true }),
    );
    await step("currentBranch on old", () => git.currentBranch({ dir }));
    await step("checkout main again", () => git.checkout({ dir, ref: "main" }));
    await step("branchDelete old", () => git.branchDelete({ dir, name: "old" }));
    await step("branchList after delete", () => git.branchList({ dir }));
  },

  "reset, clean and checkout of paths": async ({ git, fs }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await fs.writeFile("/repo/a.txt", "a\n");
    await git.add({ dir, paths: ["a.txt"] });
    await git.commit({ dir, message: "base\n", author: at(1_700_000_000) });
    await fs.writeFile("/repo/a.txt", "changed\n");
    await git.add({ dir, paths: ["a.txt"] });
    await step("status staged", () => git.status({ dir }));
    await step("reset (unstage everything)", () => git.reset({ dir }));
    await step("status after reset", () => git.status({ dir }));
    await step("checkout a.txt from HEAD", () => git.checkout({ dir, ref: "HEAD", paths: ["a.txt"], force: true }));
    await step("a.txt is restored", () => fs.readFile("/repo/a.txt", "utf8"));
    await fs.writeFile("/repo/loose.txt", "x\n");
    await fs.mkdir("/repo/junk");
    await fs.writeFile("/repo/junk/j.txt", "j\n");
    await step("clean dry run", () => git.clean({ dir, dryRun: true }));
    await step("clean dry run with directories", () => git.clean({ dir, dryRun: true, directories: true }));
    await step("clean", () => git.clean({ dir }));
    await step("loose.txt is gone", () => present(fs, "/repo/loose.txt"));
    await step("junk survives without directories", () => present(fs, "/repo/junk/j.txt"));
    await step("clean directories", () => git.clean({ dir, directories: true }));
    await step("junk is gone", () => present(fs, "/repo/junk"));
    await fs.writeFile("/repo/a.txt", "dirty\n");
    await step("reset hard", () => git.reset({ dir, hard: true }));
    await step("a.txt after reset hard", () => fs.readFile("/repo/a.txt", "utf8"));
    await step("status after reset hard", () => git.status({ dir }));
    await git.add({ dir, paths: ["loose2.txt"] }).catch(() => undefined);
    await fs.writeFile("/repo/b.txt", "b\n");
    await git.add({ dir, paths: ["b.txt"] });
    await step("rm b.txt from the index", () => git.rm({ dir, paths: ["b.txt"] }));
    await step("b.txt stays in the work tree", () => fs.readFile("/repo/b.txt", "utf8"));
    await step("status after rm", () => git.status({ dir }));
  },

  "remotes and config": async ({ git }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await step("remoteAdd", () => git.remoteAdd({ dir, name: "origin", url: "https://example.com/a.git" }));
    await step("remoteAdd upstream", () => git.remoteAdd({ dir, name: "upstream", url: "https://example.com/b.git" }));
    await step("remoteList", () => git.remoteList({ dir }));
    await step("remoteRemove upstream", () => git.remoteRemove({ dir, name: "upstream" }));
    await step("remoteList after remove", () => git.remoteList({ dir }));
    await step("configGet remote url", () => git.configGet({ dir, path: "remote.origin.url" }));
    await step("configGet unset", () => git.configGet({ dir, path: "user.name" }));
    await step("configSet user.name", () => git.configSet({ dir, path: "user.name", value: "Grace" }));
    await step("configGet user.name", () => git.configGet({ dir, path: "user.name" }));
    await step("configSet append", () => git.configSet({ dir, path: "x.y", value: "1", append: true }));
    await step("configSet append again", () => git.configSet({ dir, path: "x.y", value: "2", append: true }));
    await step("configGet all", () => git.configGet({ dir, path: "x.y", all: true }));
    await step("configSet unset", () => git.configSet({ dir, path: "user.name", value: undefined }));
    await step("configGet after unset", () => git.configGet({ dir, path: "user.name" }));
    await step("repoRoot from a subdirectory", () => git.repoRoot({ dir: "/repo/sub/deeper" }));
  },

  "errors and their codes": async ({ git, fs }, step) => {
    const dir = "/repo";
    await step("status outside a repository", () => git.status({ dir: "/elsewhere" }));
    await step("log outside a repository", () => git.log({ dir: "/elsewhere" }));
    await step("repoRoot outside a repository", () => git.repoRoot({ dir: "/elsewhere" }));
    await step("init", () => git.init({ dir }));
    await step("init again", () => git.init({ dir }));
    await step("commit with an empty message", () => git.commit({ dir, message: "  " }));
    await fs.writeFile("/repo/a.txt", "a\n");
    await step("add a missing path", () => git.add({ dir, paths: ["missing.txt"] }));
    await git.add({ dir, paths: ["a.txt"] });
    await git.commit({ dir, message: "base\n", author: at(1_700_000_000) });
    await step("revParse an unknown ref", () => git.revParse({ dir, ref: "nope" }));
    await step("revParse past the root commit", () => git.revParse({ dir, ref: "HEAD~1" }));
    await step("log from an unknown ref", () => git.log({ dir, ref: "nope" }));
    await step("show an unknown ref", () => git.show({ dir, ref: "nope" }));
    await step("lsTree an unknown ref", () => git.lsTree({ dir, ref: "nope" }));
    await step("checkout an unknown ref", () => git.checkout({ dir, ref: "nope" }));
    await step("branch that exists", () => git.branch({ dir, name: "main" }));
    await step("branchDelete a missing branch", () => git.branchDelete({ dir, name: "nope" }));
    await step("tag twice", async () => {
      await git.tag({ dir, name: "t" });
      await git.tag({ dir, name: "t" });
    });
    await step("catFile a missing object", () => git.catFile({ dir, oid: "0123456789012345678901234567890123456789" }));
    await step("remoteRemove a missing remote", () => git.remoteRemove({ dir, name: "nope" }));
    await step("merge an unknown branch", () => git.merge({ dir, theirs: "nope" }));
    await step("fetch without a remote", () => git.fetch({ dir }));
    await step("push without a remote", () => git.push({ dir }));
    await step("commit with nothing staged", () => git.commit({ dir, message: "empty\n", author: at(1_700_000_050) }));
    await fs.writeFile("/repo/untracked.txt", "u\n");
    await step("diffSummary with an untracked file", () => git.diffSummary({ dir }));
  },

  "ignored files and plumbing": async ({ git, fs }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await fs.writeFile("/repo/.gitignore", "*.log\nbuild/\n");
    await fs.writeFile("/repo/a.txt", "a\n");
    await fs.writeFile("/repo/debug.log", "noise\n");
    await fs.mkdir("/repo/build");
    await fs.writeFile("/repo/build/out.js", "x\n");
    await step("status leaves ignored files out", () => git.status({ dir }));
    await step("add all leaves them out too", async () => {
      await git.add({ dir, paths: [], all: true });
      return git.lsFiles({ dir });
    });
    await step("add an ignored file with force", async () => {
      await git.add({ dir, paths: ["debug.log"], force: true });
      return git.lsFiles({ dir });
    });
    const commit = await step("commit", () => git.commit({ dir, message: "base\n", author: at(1_700_000_000) }));
    const oid = commit?.oid ?? "";
    await step("clean keeps ignored files", () => git.clean({ dir, dryRun: true, directories: true }));
    const blob = await step("hashObject write", () => git.hashObject({ dir, content: "stored\n", write: true }));
    await step("catFile the written blob", () => git.catFile({ dir, oid: blob ?? "" }));
    await step("catFile the commit", () => git.catFile({ dir, oid }));
    await step("updateRef a new branch", () => git.updateRef({ dir, ref: "refs/heads/x", value: oid }));
    await step("updateRef it again without force", () => git.updateRef({ dir, ref: "refs/heads/x", value: oid }));
    await step("updateRef it again with force", () =>
      git.updateRef({ dir, ref: "refs/heads/x", value: oid, force: true }),
    );
    await step("updateRef HEAD symbolically", () =>
      git.updateRef({ dir, ref: "HEAD", value: "refs/heads/x", symbolic: true, force: true }),
    );
    await step("currentBranch after", () => git.currentBranch({ dir }));
    await step("branchList after", () => git.branchList({ dir }));
  },

  "a merge commit, a diff and the stash": async ({ git, fs }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await fs.writeFile("/repo/a.txt", "a\n");
    await git.add({ dir, paths: ["a.txt"] });
    await git.commit({ dir, message: "base\n", author: at(1_700_000_000) });
    await git.branch({ dir, name: "side" });
    await fs.writeFile("/repo/main.txt", "main\n");
    await git.add({ dir, paths: ["main.txt"] });
    await git.commit({ dir, message: "on main\n", author: at(1_700_000_100) });
    await git.checkout({ dir, ref: "side" });
    await fs.writeFile("/repo/side.txt", "side\n");
    await git.add({ dir, paths: ["side.txt"] });
    await git.commit({ dir, message: "on side\n", author: at(1_700_000_200) });
    await git.checkout({ dir, ref: "main" });
    await step("merge side (a merge commit)", () =>
      git.merge({ dir, theirs: "side", message: "merge side\n", author: at(1_700_000_300) }),
    );
    await step("log after the merge commit", () => git.log({ dir }));
    await step("revParse HEAD^2", () => git.revParse({ dir, ref: "HEAD^2" }));
    await step("side.txt is in the work tree", () => fs.readFile("/repo/side.txt", "utf8"));
    await fs.writeFile("/repo/a.txt", "a\nmore\n");
    await step("diff", () => git.diff({ dir }));
    await step("diffSummary", () => git.diffSummary({ dir }));
    await step("diff of a path that did not change", () => git.diff({ dir, paths: ["main.txt"] }));
    await git.configSet({ dir, path: "user.name", value: "Ada" });
    await git.configSet({ dir, path: "user.email", value: "ada@example.com" });
    await step("stashPush", () => git.stashPush({ dir, message: "wip" }));
    await step("a.txt after stashPush", () => fs.readFile("/repo/a.txt", "utf8"));
    await step("stashList", () => git.stashList({ dir }));
    await step("stashPop", () => git.stashPop({ dir }));
    await step("a.txt after stashPop", () => fs.readFile("/repo/a.txt", "utf8"));
    await step("stashList after pop", () => git.stashList({ dir }));
  },

  "the cli": async ({ git, fs }, step) => {
    const cli = (argv: string[]) =>
      git.cli({ argv, cwd: "/repo", env: { GIT_AUTHOR_NAME: "Ada", GIT_AUTHOR_EMAIL: "a@b" } });
    await step("init", () => cli(["init"]));
    await fs.writeFile("/repo/a.txt", "a\n");
    await step("status --porcelain", () => cli(["status", "--porcelain"]));
    await step("add", () => cli(["add", "a.txt"]));
    await step("status --short", () => cli(["status", "--short"]));
    // The commit's time is the clock's here, so its oid is masked.
    await step("commit", async () => (await cli(["commit", "-m", "first"])).stdout.replace(/[0-9a-f]{7}/, "<oid>"));
    await step("branch", () => cli(["branch"]));
    await step("log --oneline", async () => (await cli(["log", "--oneline"])).stdout.replace(/[0-9a-f]{7}/, "<oid>"));
    await step("status outside a repository", () => git.cli({ argv: ["status"], cwd: "/" }));
    await step("an unknown subcommand", () => cli(["frobnicate"]));
  },

  "an empty repository": async ({ git }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await step("status", () => git.status({ dir }));
    await step("currentBranch", () => git.currentBranch({ dir }));
    await step("branchList", () => git.branchList({ dir }));
    await step("lsFiles", () => git.lsFiles({ dir }));
    await step("log", () => git.log({ dir }));
  },
};

const SEEDS = [1, 7, 42, 2024];

/** Scenarios run on a Workspace without `defaultGitIdentity`. */
const identityScenarios: Record<string, Scenario> = {
  "commit without any identity": async ({ git, fs }, step) => {
    const dir = "/repo";
    await git.init({ dir });
    await fs.writeFile("/repo/a.txt", "a\n");
    await git.add({ dir, paths: ["a.txt"] });
    await step("commit", () => git.commit({ dir, message: "m\n" }));
    await step("commit with GIT_AUTHOR_* in env", async () => {
      const env = { GIT_AUTHOR_NAME: "Env", GIT_AUTHOR_EMAIL: "env@example.com" };
      await git.commit({ dir, message: "m\n", env });
      return (await git.log({ dir }))[0]?.author.name;
    });
  },
};

/** `scenario › step` → why ours deliberately answers differently (each also in docs/migration.md). */
const differences: Record<string, string> = {
  // Status letters: the original's worktree column says "M" for a staged file
  // that has not changed since `add`; ours says " ", as `git status --short`.
  "init, add, commit, status and log › status after add": "worktree letter of a just-staged file",
  "init, add, commit, status and log › status after add all": "worktree letter of a just-staged file",
  "reset, clean and checkout of paths › status staged": "worktree letter of a just-staged file",
  // Revision syntax (`HEAD~1`, `main^2`) resolves in every method of ours;
  // the original resolves it only in revParse, and elsewhere fails (calling
  // the repository missing) or, for diff, returns nothing.
  "init, add, commit, status and log › log from HEAD~1": "revision syntax outside revParse",
  "init, add, commit, status and log › diffSummary HEAD~1 to HEAD": "revision syntax outside revParse",
  "init, add, commit, status and log › lsFiles at HEAD~1": "revision syntax outside revParse",
  "branches, tags, checkout and merge › tag v0 at HEAD~1": "revision syntax outside revParse",
  "branches, tags, checkout and merge › tagList": "follows from tag v0 at HEAD~1",
  "branches, tags, checkout and merge › revParse v0": "follows from tag v0 at HEAD~1",
  // ENOTAREPO means no repository: the original also throws it whenever
  // isomorphic-git could not find a ref (a missing branch, an unborn HEAD).
  "branches, tags, checkout and merge › branchDelete old": "the original deletes the branch, then throws ENOTAREPO",
  "errors and their codes › branchDelete a missing branch": "EBRANCHFAIL, not ENOTAREPO, for a missing branch",
  "an empty repository › log": "ELOGFAIL 'does not have any commits yet', not ENOTAREPO",
  // A merge brings the work tree along in ours, as git does; the original
  // moves only the branch, so its work tree lacks the merged files (and its
  // diff then shows them deleted).
  "a merge commit, a diff and the stash › side.txt is in the work tree": "merge updates the work tree",
  "a merge commit, a diff and the stash › diffSummary": "follows from the merge",
  // diff prints git's own format (`diff --git`, `index`, `a/` `b/`); the
  // original prints the `diff` package's (`Index:`, `====`).
  "a merge commit, a diff and the stash › diff": "git's patch format",
  // The CLI prints what real git prints: `??` for untracked in porcelain v1,
  // a just-staged file as `A `, and outside a repository exit 128.
  "the cli › status --porcelain": "git's porcelain v1",
  "the cli › status --short": "worktree letter of a just-staged file",
  "the cli › status outside a repository": "exit 128 outside a repository",
  "the cli › an unknown subcommand": "ours adds \"See 'git help'.\"",
  // A commit with nothing staged is refused ("nothing to commit", unless
  // allowEmpty); the original writes an empty commit.
  "errors and their codes › commit with nothing staged": "nothing to commit",
  // Untracked files are not part of a diff, as in git; the original lists them as added.
  "errors and their codes › diffSummary with an untracked file": "untracked files left out",
  // Outside any repository every method of ours throws ENOTAREPO; the
  // original's status reports the missing directory instead.
  "errors and their codes › status outside a repository": "ENOTAREPO, not ESTATUSFAIL",
};

/** Ours with only the fields the reference's value has (ours may have more: our additions). */
function project(ours: unknown, reference: unknown): unknown {
  if (Array.isArray(reference) && Array.isArray(ours) && ours.length === reference.length) {
    return ours.map((item, index) => project(item, reference[index]));
  }
  if (isRecord(reference) && isRecord(ours)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(reference)) out[key] = project(ours[key], reference[key]);
    return out;
  }
  return ours;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const operationFailure = /^(git [a-z -]+ failed: )/;

function sameOutcome(reference: Settled, ours: Settled): boolean {
  if ("ok" in reference && "ok" in ours) {
    return JSON.stringify(project(ours.ok, reference.ok)) === JSON.stringify(reference.ok);
  }
  if ("error" in reference && "error" in ours) {
    if (reference.error.code !== ours.error.code) return false;
    if (reference.error.message === ours.error.message) return true;
    const prefix = operationFailure.exec(reference.error.message)?.[1];
    return prefix !== undefined && ours.error.message.startsWith(prefix);
  }
  return false;
}

const mismatches = (name: string, reference: Outcome[], ours: Outcome[]): string[] =>
  listedMismatches(name, reference, ours, differences, sameOutcome);

for (const side of ["ours", "ours on a provider"] as const) {
  describe(`differential: git, ${side}`, () => {
    for (const [name, scenario] of Object.entries(scenarios)) {
      it(name, async () => {
        const reference = await run("reference", scenario, true);
        const ours = await run(side, scenario, true);
        expect(mismatches(name, reference, ours)).toEqual([]);
      });
    }
    for (const seed of SEEDS) {
      it(`random staging and commits, seed ${seed}`, async () => {
        const reference = await run("reference", randomScenario(seed), true);
        const ours = await run(side, randomScenario(seed), true);
        expect(mismatches(`seed ${seed}`, reference, ours), `seed ${seed}`).toEqual([]);
      });
    }
    for (const [name, scenario] of Object.entries(identityScenarios)) {
      it(name, async () => {
        const reference = await run("reference", scenario, false);
        const ours = await run(side, scenario, false);
        expect(mismatches(name, reference, ours)).toEqual([]);
      });
    }
  });
}

describe("differential: the error classes", () => {
  const cause = new Error("underneath");
  const build = (git: typeof referenceGit | typeof oursGit) => [
    new git.GitError("ECUSTOM", "a message of yours", { cause }),
    new git.NotARepositoryError("/w", { cause }),
    new git.AlreadyInitializedError("/w"),
    new git.MissingIdentityError(),
    new git.PathOutsideRepoError("../x", "/w"),
    new git.PathspecNotFoundError("nope.txt"),
  ];
  it("have the original's names, codes and messages, and keep the cause", () => {
    const describe = (error: Error & { code: string }) => ({
      name: error.name,
      code: error.code,
      message: error.message,
      cause: error.cause === cause,
      string: String(error),
    });
    const theirs = build(referenceGit).map((error) => ({
      ...describe(error),
      base: error instanceof referenceGit.GitError,
    }));
    const mine = build(oursGit).map((error) => ({ ...describe(error), base: error instanceof oursGit.GitError }));
    expect(mine).toEqual(theirs);
  });
});

describe("createGitClient({ adapter }) in the original's form", () => {
  it("makes the files from ws.provider() with the adapter, once, on first use", async () => {
    const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
    const calls = await runInDurableObject(stub, async (_instance, state) => {
      const workspace = new ReferenceWorkspace({ storage: referenceStorage(state.storage) });
      const seen: unknown[] = [];
      const git = createGitClient({
        adapter: (provider) => {
          seen.push(provider);
          return providerFs(provider as unknown as SQLiteWorkspaceProvider);
        },
      })({ ws: { provider: () => workspace.provider() }, defaultIdentity: ADA });
      await workspace.fs.mkdir("/r");
      expect(seen).toEqual([]);
      await git.init({ dir: "/r" });
      await workspace.fs.writeFile("/r/a.txt", "a\n");
      await git.add({ dir: "/r", paths: ["a.txt"] });
      await git.commit({ dir: "/r", message: "m" });
      expect(await git.status({ dir: "/r" })).toEqual([]);
      return seen.length;
    });
    expect(calls).toBe(1);
  });
});

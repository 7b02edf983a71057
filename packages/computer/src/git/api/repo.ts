/** Repository-level verbs: init, repoRoot, currentBranch, lsFiles. */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { AlreadyInitializedError } from "../errors.js";
import { exists, findRepoRoot, joinPath, requireRepo, resolvePath } from "../paths.js";
import { resolveRevision } from "./revisions.js";

export interface InitOptions {
  dir?: string;
  /** Default `main`. */
  defaultBranch?: string;
  bare?: boolean;
}

/** A second init of the same directory is an error (128), not git's "Reinitialized". */
export async function init(ctx: GitContext, options: InitOptions = {}): Promise<{ dir: string }> {
  const dir = resolvePath("/", options.dir ?? "/");
  const marker = options.bare ? joinPath(dir, "HEAD") : joinPath(dir, ".git");
  if (
    (await findRepoRoot(ctx, dir)) === dir ||
    (options.bare && (await ctx.fs.promises.stat(marker).catch(() => null)))
  ) {
    throw new AlreadyInitializedError(dir);
  }
  // dofs's recursive mkdir still refuses an existing "/" (EEXIST).
  if (!(await exists(ctx, dir))) await ctx.files.mkdirp(dir);
  await git.init({
    fs: ctx.fs,
    dir,
    defaultBranch: options.defaultBranch ?? "main",
    ...(options.bare ? { bare: true, gitdir: dir } : {}),
  });
  // isomorphic-git writes browser defaults (filemode/symlinks false, ignorecase true); dofs has
  // modes and symlinks and is case-sensitive, so say what real git on Linux would.
  const gitdir = options.bare ? dir : joinPath(dir, ".git");
  for (const [path, value] of [
    ["core.filemode", true],
    ["core.symlinks", true],
    ["core.ignorecase", false],
  ] as const) {
    await git.setConfig({ fs: ctx.fs, gitdir, path, value });
  }
  return { dir };
}

export async function repoRoot(ctx: GitContext, options: { dir?: string } = {}): Promise<string> {
  return requireRepo(ctx, options.dir);
}

/** The short branch name (`refs/heads/…` with `fullname`), or null when HEAD is detached. */
export async function currentBranch(
  ctx: GitContext,
  options: { dir?: string; fullname?: boolean } = {},
): Promise<string | null> {
  const root = await requireRepo(ctx, options.dir);
  return (await git.currentBranch({ fs: ctx.fs, dir: root, fullname: options.fullname === true })) ?? null;
}

/** Paths in the index (or in a commit's tree with `ref`), repository-relative. */
export async function lsFiles(ctx: GitContext, options: { dir?: string; ref?: string } = {}): Promise<string[]> {
  const root = await requireRepo(ctx, options.dir);
  const ref = options.ref === undefined ? undefined : await resolveRevision(ctx, root, options.ref);
  return git.listFiles({ fs: ctx.fs, dir: root, cache: ctx.cache, ...(ref ? { ref } : {}) });
}

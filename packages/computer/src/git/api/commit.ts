/** Staging and committing: add, rm, commit. */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError, PathspecNotFoundError } from "../errors.js";
import { type GitEnv, type GitSignature, resolveIdentities } from "../identity.js";
import { joinPath, matchesPathspec, requireRepo } from "../paths.js";
import { shortOid } from "./revisions.js";
import { status } from "./status.js";

export interface AddOptions {
  dir?: string;
  /** Repository-relative pathspecs; `.` is everything. Deleted files are staged as deletions. No paths, nothing staged. */
  paths: string[];
  /** Add ignored files too. */
  force?: boolean;
  /** Every change in the repository (`git add -A`); `paths` is then ignored. */
  all?: boolean;
  /** With `all`: only files HEAD tracks, never untracked ones (`git add -u`, `commit -a`). */
  trackedOnly?: boolean;
}

export async function add(ctx: GitContext, options: AddOptions): Promise<{ added: string[]; removed: string[] }> {
  const root = await requireRepo(ctx, options.dir);
  const added: string[] = [];
  const removed: string[] = [];
  if (!options.all && options.paths.length === 0) return { added, removed };
  const paths = options.all ? ["."] : options.paths;
  const { entries } = await status(ctx, { dir: root, paths, untracked: options.trackedOnly ? "no" : "all" });
  for (const entry of entries) {
    // A file out of the index but still in the work tree (after `rm --cached`) is added back.
    const backIn = entry.index === null && entry.worktree !== null;
    if (entry.y === "." && !backIn) continue;
    if (options.all && options.trackedOnly && entry.head === null) continue;
    if (entry.y === "D") {
      await git.remove({ fs: ctx.fs, dir: root, filepath: entry.path, cache: ctx.cache });
      removed.push(entry.path);
    } else {
      added.push(entry.path);
    }
  }
  if (added.length > 0) {
    await git.add({ fs: ctx.fs, dir: root, filepath: added, cache: ctx.cache, force: options.force === true });
  }
  if (options.force && !options.all) {
    // Ignored files never reach the status walk; add the named ones directly.
    for (const path of options.paths) {
      if (path !== "." && !added.includes(path)) {
        await git.add({ fs: ctx.fs, dir: root, filepath: path, cache: ctx.cache, force: true });
      }
    }
  }
  if (options.all) return { added, removed };
  const matched = new Set(await git.listFiles({ fs: ctx.fs, dir: root, cache: ctx.cache }));
  for (const path of options.paths) {
    if (path === "." || added.some((a) => matchesPathspec(a, [path])) || removed.includes(path)) continue;
    if ([...matched].some((file) => matchesPathspec(file, [path]))) continue;
    throw new PathspecNotFoundError(path);
  }
  return { added, removed };
}

export interface RmOptions {
  dir?: string;
  paths: string[];
  /** Keep the files in the work tree (git's `--cached`). */
  cached?: boolean;
  recursive?: boolean;
}

/** Removes from the index and, unless `cached`, from the work tree. */
export async function rm(ctx: GitContext, options: RmOptions): Promise<{ removed: string[] }> {
  const root = await requireRepo(ctx, options.dir);
  const tracked = await git.listFiles({ fs: ctx.fs, dir: root, cache: ctx.cache });
  const removed: string[] = [];
  for (const path of options.paths) {
    const hits = tracked.filter((file) => matchesPathspec(file, [path]));
    if (hits.length === 0) throw new PathspecNotFoundError(path);
    if (hits.some((file) => file !== path) && !options.recursive) {
      throw new GitError("EFAILED", `not removing '${path}' recursively without -r`, { path });
    }
    for (const file of hits) {
      await git.remove({ fs: ctx.fs, dir: root, filepath: file, cache: ctx.cache });
      if (!options.cached) await ctx.files.remove(joinPath(root, file));
      removed.push(file);
    }
  }
  return { removed };
}

export interface CommitOptions {
  dir?: string;
  message: string;
  author?: GitSignature;
  committer?: GitSignature;
  /** `GIT_AUTHOR_*` / `GIT_COMMITTER_*` (see identity.ts). */
  env?: GitEnv;
  /** Commit even when nothing is staged. */
  allowEmpty?: boolean;
  amend?: boolean;
}

export interface CommitResult {
  oid: string;
  short: string;
  subject: string;
  branch: string | null;
}

export async function commit(ctx: GitContext, options: CommitOptions): Promise<CommitResult> {
  const root = await requireRepo(ctx, options.dir);
  if (typeof options.message !== "string" || options.message.trim() === "") {
    throw new GitError("EMSG", "commit message is required");
  }
  const { author, committer } = await resolveIdentities(ctx, root, options);
  if (!options.allowEmpty && !options.amend) {
    const { entries } = await status(ctx, { dir: root, untracked: "no" });
    if (!entries.some((entry) => entry.x !== "." && entry.x !== "?")) {
      throw new GitError("ENOTHING", "nothing to commit, working tree clean");
    }
  }
  const message = options.message.endsWith("\n") ? options.message : `${options.message}\n`;
  const oid = await git.commit({
    fs: ctx.fs,
    dir: root,
    message,
    author,
    committer,
    cache: ctx.cache,
    ...(options.amend ? { amend: true } : {}),
  });
  const branch = (await git.currentBranch({ fs: ctx.fs, dir: root, fullname: false })) ?? null;
  return { oid, short: shortOid(oid), subject: options.message.split("\n")[0] ?? "", branch };
}

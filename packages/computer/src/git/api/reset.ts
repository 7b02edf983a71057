/**
 * `reset` and `clean`. reset supports `--hard <rev>` and unstaging paths
 * (git's default mixed mode limited to paths); moving HEAD softly or mixed
 * is not supported (the CLI rejects `--soft`/`--mixed` with 129).
 */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { joinPath, matchesPathspec, requireRepo } from "../paths.js";
import { resolveRevision } from "./revisions.js";
import { status } from "./status.js";

export interface ResetOptions {
  dir?: string;
  /** Default `HEAD`. */
  rev?: string;
  /** Unstage these paths (index back to `rev`), leaving the work tree. */
  paths?: string[];
  /** Move the branch to `rev` and make index and work tree match it. */
  hard?: boolean;
}

export async function reset(ctx: GitContext, options: ResetOptions = {}): Promise<{ oid: string | null }> {
  const root = await requireRepo(ctx, options.dir);
  const rev = options.rev ?? "HEAD";
  if (options.hard) {
    const oid = await resolveRevision(ctx, root, rev);
    const branch = await git.currentBranch({ fs: ctx.fs, dir: root, fullname: true });
    await git.writeRef({ fs: ctx.fs, dir: root, ref: branch ?? "HEAD", value: oid, force: true });
    // Tracked files the target lacks go too; untracked files stay, as in git.
    const { entries } = await status(ctx, { dir: root, untracked: "no" });
    await git.checkout({ fs: ctx.fs, dir: root, ref: branch ?? oid, force: true, cache: ctx.cache });
    for (const entry of entries) {
      if (entry.x === "A") {
        await git.remove({ fs: ctx.fs, dir: root, filepath: entry.path, cache: ctx.cache });
        await ctx.files.remove(joinPath(root, entry.path));
      }
    }
    return { oid };
  }
  const oid = await resolveRevision(ctx, root, rev).catch(() => null);
  const { entries } = await status(ctx, {
    dir: root,
    untracked: "no",
    ...(options.paths ? { paths: options.paths } : {}),
  });
  for (const entry of entries) {
    if (entry.x === "." || entry.x === "?") continue;
    if (oid) await git.resetIndex({ fs: ctx.fs, dir: root, filepath: entry.path, ref: oid, cache: ctx.cache });
    else await git.remove({ fs: ctx.fs, dir: root, filepath: entry.path, cache: ctx.cache });
  }
  return { oid };
}

export interface CleanOptions {
  dir?: string;
  paths?: string[];
  /** Only report what would go. */
  dryRun?: boolean;
  /** Remove untracked directories too (`-d`). */
  directories?: boolean;
}

/**
 * Removes untracked, non-ignored files; returns repository paths (directories
 * end in `/`). As in git, a wholly untracked directory is left alone unless
 * `directories` is set, and then goes as a whole.
 */
export async function clean(ctx: GitContext, options: CleanOptions = {}): Promise<{ removed: string[] }> {
  const root = await requireRepo(ctx, options.dir);
  const { entries } = await status(ctx, { dir: root, untracked: "normal" });
  const removed = entries
    .filter((entry) => entry.x === "?" && (options.directories || !entry.path.endsWith("/")))
    .filter((entry) => matchesPathspec(entry.path.replace(/\/$/, ""), options.paths))
    .map((entry) => entry.path);
  if (!options.dryRun) {
    for (const path of removed) {
      await ctx.files.remove(joinPath(root, path.replace(/\/$/, "")), { recursive: true });
    }
  }
  return { removed };
}

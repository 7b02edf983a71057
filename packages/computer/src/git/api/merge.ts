/**
 * `merge`: fast-forward when possible, else a merge commit (which needs an
 * identity). isomorphic-git merges in the object store only; the work tree
 * is brought along afterwards with a checkout of the current branch.
 */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError, isGitError } from "../errors.js";
import { type GitEnv, type GitSignature, resolveIdentities } from "../identity.js";
import { requireRepo } from "../paths.js";
import { resolveRevision } from "./revisions.js";

export interface MergeOptions {
  dir?: string;
  /** The branch, tag or commit to merge in. */
  theirs: string;
  /** The branch merged into; default the current one. Another branch moves without touching the work tree. */
  ours?: string;
  /** `false`: a merge commit even when a fast-forward would do (`--no-ff`). */
  fastForward?: boolean;
  message?: string;
  author?: GitSignature;
  committer?: GitSignature;
  env?: GitEnv;
  fastForwardOnly?: boolean;
}

export interface MergeResult {
  status: "up-to-date" | "fast-forward" | "merge";
  oid: string;
  /** The tree of the merge commit, when one was made. */
  tree?: string;
  /** isomorphic-git's flags, which the original returns: one of them is set. */
  alreadyMerged?: boolean;
  fastForward?: boolean;
  mergeCommit?: boolean;
}

export async function merge(ctx: GitContext, options: MergeOptions): Promise<MergeResult> {
  const root = await requireRepo(ctx, options.dir);
  const current = await git.currentBranch({ fs: ctx.fs, dir: root });
  const ours = options.ours?.replace(/^refs\/heads\//, "") ?? current;
  if (!ours) throw new GitError("EFAILED", "cannot merge with a detached HEAD");
  const theirs = await resolveRevision(ctx, root, options.theirs);
  let identities: Awaited<ReturnType<typeof resolveIdentities>> | undefined;
  let identityError: GitError | undefined;
  try {
    identities = await resolveIdentities(ctx, root, options);
  } catch (error) {
    if (!isGitError(error, "EIDENTITY")) throw error;
    identityError = error;
  }
  let result: Awaited<ReturnType<typeof git.merge>>;
  try {
    result = await git.merge({
      fs: ctx.fs,
      dir: root,
      ours,
      theirs,
      cache: ctx.cache,
      abortOnConflict: true,
      fastForward: options.fastForward !== false,
      fastForwardOnly: options.fastForwardOnly === true || identities === undefined,
      message: options.message ?? `Merge ${options.theirs} into ${ours}`,
      ...(identities ? { author: identities.author, committer: identities.committer } : {}),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "FastForwardError" && identityError) throw identityError;
    if (code === "FastForwardError")
      throw new GitError("ECONFLICT", "not possible to fast-forward, aborting", { cause: error });
    if (code === "MergeConflictError" || code === "MergeNotSupportedError") {
      throw new GitError("ECONFLICT", `merge conflict: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }
  const oid = result.oid ?? theirs;
  if (result.alreadyMerged) return { status: "up-to-date", oid, alreadyMerged: true };
  if (ours === current) await git.checkout({ fs: ctx.fs, dir: root, ref: ours, cache: ctx.cache });
  return result.fastForward
    ? { status: "fast-forward", oid, fastForward: true }
    : { status: "merge", oid, ...(result.tree ? { tree: result.tree } : {}), mergeCommit: true };
}

/**
 * `merge`: fast-forward when possible, else a merge commit (which needs an
 * identity). isomorphic-git merges in the object store only; the work tree
 * is brought along afterwards with a checkout of the current branch.
 */
import git from "isomorphic-git";
import type { GitIdentity } from "../../workspace/capabilities.js";
import type { GitContext } from "../context.js";
import { GitError, isGitError } from "../errors.js";
import { type GitEnv, resolveIdentities } from "../identity.js";
import { requireRepo } from "../paths.js";
import { resolveRevision } from "./revisions.js";

export interface MergeOptions {
  dir?: string;
  /** The branch, tag or commit to merge into the current branch. */
  theirs: string;
  message?: string;
  author?: GitIdentity;
  committer?: GitIdentity;
  env?: GitEnv;
  fastForwardOnly?: boolean;
}

export interface MergeResult {
  status: "up-to-date" | "fast-forward" | "merge";
  oid: string;
}

export async function merge(ctx: GitContext, options: MergeOptions): Promise<MergeResult> {
  const root = await requireRepo(ctx, options.dir);
  const ours = await git.currentBranch({ fs: ctx.fs, dir: root });
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
  if (result.alreadyMerged) return { status: "up-to-date", oid: result.oid ?? theirs };
  await git.checkout({ fs: ctx.fs, dir: root, ref: ours, cache: ctx.cache });
  return { status: result.fastForward ? "fast-forward" : "merge", oid: result.oid ?? theirs };
}

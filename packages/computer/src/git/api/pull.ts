/** `pull`: fetch, then merge the current branch's upstream (or the same name on the remote). */
import git from "isomorphic-git";
import type { GitContext, GitRemoteAuth } from "../context.js";
import { GitError } from "../errors.js";
import type { GitEnv, GitSignature } from "../identity.js";
import { requireRepo } from "../paths.js";
import { type MergeResult, merge } from "./merge.js";
import { fetch, type RemoteResult } from "./remote.js";

export interface PullOptions extends GitRemoteAuth {
  dir?: string;
  remote?: string;
  /** Pull from this URL instead of a configured remote (its refs are stored under `remote`, default origin). */
  url?: string;
  /** The remote branch; default the upstream of the current branch. */
  ref?: string;
  /** The remote's name for the branch, when it differs from `ref`. */
  remoteRef?: string;
  singleBranch?: boolean;
  /** `false`: always a merge commit (`--no-ff`). */
  fastForward?: boolean;
  author?: GitSignature;
  committer?: GitSignature;
  env?: GitEnv;
  fastForwardOnly?: boolean;
}

export async function pull(ctx: GitContext, options: PullOptions = {}): Promise<RemoteResult & MergeResult> {
  const root = await requireRepo(ctx, options.dir);
  const branch = await git.currentBranch({ fs: ctx.fs, dir: root });
  if (!branch) throw new GitError("EFAILED", "you are not currently on a branch");
  const configured = async (key: string): Promise<string | undefined> => {
    const value: unknown = await git.getConfig({ fs: ctx.fs, dir: root, path: `branch.${branch}.${key}` });
    return typeof value === "string" ? value : undefined;
  };
  const remote = options.remote ?? (await configured("remote")) ?? "origin";
  const ref = options.remoteRef ?? options.ref ?? (await configured("merge"))?.replace(/^refs\/heads\//, "") ?? branch;
  const { progress } = await fetch(ctx, {
    ...options,
    dir: root,
    remote,
    ref,
    ...(options.remoteRef ? { remoteRef: options.remoteRef } : {}),
  });
  const result = await merge(ctx, { ...options, dir: root, theirs: `refs/remotes/${remote}/${ref}` });
  return { ...result, progress };
}

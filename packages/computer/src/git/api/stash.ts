/**
 * The stash, on isomorphic-git's. Its stash commits take their identity from
 * `.git/config` `user.*` only; without one the push fails with EIDENTITY.
 */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError } from "../errors.js";
import { requireRepo } from "../paths.js";

export async function stashPush(ctx: GitContext, options: { dir?: string; message?: string } = {}): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  await stashOp(() => git.stash({ fs: ctx.fs, dir: root, op: "push", message: options.message ?? "" }));
}

export async function stashList(ctx: GitContext, options: { dir?: string } = {}): Promise<string[]> {
  const root = await requireRepo(ctx, options.dir);
  const list: unknown = await git.stash({ fs: ctx.fs, dir: root, op: "list" });
  return Array.isArray(list) ? list.map(String) : [];
}

export async function stashPop(ctx: GitContext, options: { dir?: string; index?: number } = {}): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  await stashOp(() => git.stash({ fs: ctx.fs, dir: root, op: "pop", refIdx: options.index ?? 0 }));
}

async function stashOp(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "MissingNameError") {
      throw new GitError("EIDENTITY", "stash needs user.name and user.email in the repository config", {
        cause: error,
      });
    }
    if (code === "NotFoundError") throw new GitError("EFAILED", "no stash entries found", { cause: error });
    throw error;
  }
}

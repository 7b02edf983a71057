/** `config` over the repository's `.git/config`. A missing key is `undefined` (the CLI exits 1, like git). */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { requireRepo } from "../paths.js";

export async function configGet(ctx: GitContext, options: { dir?: string; path: string }): Promise<string | undefined> {
  const root = await requireRepo(ctx, options.dir);
  const value: unknown = await git.getConfig({ fs: ctx.fs, dir: root, path: options.path });
  return value === undefined || value === null ? undefined : String(value);
}

export async function configSet(
  ctx: GitContext,
  options: { dir?: string; path: string; value: string | undefined },
): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  await git.setConfig({ fs: ctx.fs, dir: root, path: options.path, value: options.value });
}

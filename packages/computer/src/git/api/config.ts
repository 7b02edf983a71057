/** `config` over the repository's `.git/config`. A missing key is `undefined` (the CLI exits 1, like git). */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { requireRepo } from "../paths.js";

export async function configGet(ctx: GitContext, options: { dir?: string; path: string }): Promise<string | undefined> {
  const root = await requireRepo(ctx, options.dir);
  const value: unknown = await git.getConfig({ fs: ctx.fs, dir: root, path: options.path });
  return value === undefined || value === null ? undefined : String(value);
}

/** Every value of a multi-valued key, in file order; none is `[]`. */
export async function configGetAll(ctx: GitContext, options: { dir?: string; path: string }): Promise<string[]> {
  const root = await requireRepo(ctx, options.dir);
  const values: unknown[] = await git.getConfigAll({ fs: ctx.fs, dir: root, path: options.path });
  return values.map(String);
}

/** `undefined` unsets the key; `append` adds a value to a multi-valued key. */
export async function configSet(
  ctx: GitContext,
  options: { dir?: string; path: string; value: string | boolean | number | undefined; append?: boolean },
): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  await git.setConfig({
    fs: ctx.fs,
    dir: root,
    path: options.path,
    value: options.value,
    ...(options.append ? { append: true } : {}),
  });
}

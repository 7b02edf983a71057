/** Branches, lightweight tags, raw refs and checkout. */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError } from "../errors.js";
import { requireRepo } from "../paths.js";
import { resolveRevision } from "./revisions.js";

export interface BranchOptions {
  dir?: string;
  name: string;
  /** Default `HEAD`. */
  startPoint?: string;
  /** Switch to it too (`checkout -b`). */
  checkout?: boolean;
  force?: boolean;
}

export async function branch(ctx: GitContext, options: BranchOptions): Promise<{ name: string; oid: string }> {
  const root = await requireRepo(ctx, options.dir);
  const oid = await resolveRevision(ctx, root, options.startPoint ?? "HEAD");
  await refOrExists(() =>
    git.writeRef({
      fs: ctx.fs,
      dir: root,
      ref: `refs/heads/${options.name}`,
      value: oid,
      force: options.force === true,
    }),
  );
  if (options.checkout) await git.checkout({ fs: ctx.fs, dir: root, ref: options.name, cache: ctx.cache });
  return { name: options.name, oid };
}

export async function branchDelete(ctx: GitContext, options: { dir?: string; name: string }): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  if ((await git.currentBranch({ fs: ctx.fs, dir: root })) === options.name) {
    throw new GitError("EFAILED", `cannot delete branch '${options.name}' checked out at '${root}'`);
  }
  await git.deleteBranch({ fs: ctx.fs, dir: root, ref: options.name });
}

export async function branchList(ctx: GitContext, options: { dir?: string; remote?: string } = {}): Promise<string[]> {
  const root = await requireRepo(ctx, options.dir);
  return git.listBranches({ fs: ctx.fs, dir: root, ...(options.remote ? { remote: options.remote } : {}) });
}

/** Lightweight tags only (the reference's limit too). */
export async function tag(
  ctx: GitContext,
  options: { dir?: string; name: string; rev?: string; force?: boolean },
): Promise<{ name: string; oid: string }> {
  const root = await requireRepo(ctx, options.dir);
  const oid = await resolveRevision(ctx, root, options.rev ?? "HEAD");
  await refOrExists(() =>
    git.tag({ fs: ctx.fs, dir: root, ref: options.name, object: oid, force: options.force === true }),
  );
  return { name: options.name, oid };
}

export async function tagDelete(ctx: GitContext, options: { dir?: string; name: string }): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  await git.deleteTag({ fs: ctx.fs, dir: root, ref: options.name });
}

export async function tagList(ctx: GitContext, options: { dir?: string } = {}): Promise<string[]> {
  const root = await requireRepo(ctx, options.dir);
  return git.listTags({ fs: ctx.fs, dir: root });
}

export interface UpdateRefOptions {
  dir?: string;
  ref: string;
  /** A revision, or with `symbolic` the ref to point at. */
  value?: string;
  symbolic?: boolean;
  delete?: boolean;
  /** Overwrite an existing ref (default true, as git's update-ref does). */
  force?: boolean;
}

export async function updateRef(ctx: GitContext, options: UpdateRefOptions): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  if (options.delete) {
    await git.deleteRef({ fs: ctx.fs, dir: root, ref: options.ref });
    return;
  }
  if (options.value === undefined) throw new GitError("EUSAGE", "update-ref needs a value");
  const value = options.symbolic ? options.value : await resolveRevision(ctx, root, options.value);
  await refOrExists(() =>
    git.writeRef({
      fs: ctx.fs,
      dir: root,
      ref: options.ref,
      value,
      force: options.force !== false,
      symbolic: options.symbolic === true,
    }),
  );
}

export interface CheckoutOptions {
  dir?: string;
  /** A branch, tag or commit; a remote branch name creates a tracking branch. */
  ref: string;
  /** Create the branch first (`-b`). */
  create?: boolean;
  force?: boolean;
  /** Restore only these paths from the index / ref, keeping HEAD. */
  paths?: string[];
}

/** Files tracked on the current side but not on the target are removed, as in git. */
export async function checkout(ctx: GitContext, options: CheckoutOptions): Promise<{ ref: string }> {
  const root = await requireRepo(ctx, options.dir);
  if (options.create) {
    await branch(ctx, { dir: root, name: options.ref, checkout: false });
  }
  const local = await git.listBranches({ fs: ctx.fs, dir: root });
  let ref = options.ref;
  if (!local.includes(ref) && !options.paths) {
    // A commit or tag: detach onto it (isomorphic-git wants the oid for that).
    const remote = await git.listBranches({ fs: ctx.fs, dir: root, remote: "origin" });
    if (!remote.includes(ref)) ref = await resolveRevision(ctx, root, ref);
  }
  await git.checkout({
    fs: ctx.fs,
    dir: root,
    ref,
    cache: ctx.cache,
    force: options.force === true,
    ...(options.paths ? { filepaths: options.paths, noUpdateHead: true } : {}),
  });
  return { ref };
}

async function refOrExists(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if ((error as { code?: string }).code === "AlreadyExistsError") {
      throw new GitError("EEXISTS", (error as Error).message, { cause: error });
    }
    throw error;
  }
}

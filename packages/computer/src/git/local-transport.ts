/**
 * `file://` remotes: a repository elsewhere in the same workspace
 * filesystem. There is no wire protocol to speak, so fetch and push copy
 * the missing objects (loose, one by one) and then move the refs. Depth is
 * ignored here, as git ignores it for local clones.
 */
import git from "isomorphic-git";
import type { GitContext } from "./context.js";
import { GitError } from "./errors.js";
import { exists, joinPath } from "./paths.js";

/** The git directory of a bare or non-bare repository at `path`. */
export async function gitdirOf(ctx: GitContext, path: string): Promise<string> {
  if (await exists(ctx, joinPath(path, ".git"))) return joinPath(path, ".git");
  if (await exists(ctx, joinPath(path, "HEAD"))) return path;
  throw new GitError("ENOTAREPO", `'${path}' does not appear to be a git repository`, { path });
}

export interface LocalFetchResult {
  /** Branch name → oid as the source has them. */
  branches: Record<string, string>;
  /** The source's HEAD branch, if it has one. */
  headBranch: string | undefined;
}

export async function fetchLocal(
  ctx: GitContext,
  root: string,
  source: string,
  remote: string,
): Promise<LocalFetchResult> {
  const from = await gitdirOf(ctx, source);
  const to = joinPath(root, ".git");
  const branches: Record<string, string> = {};
  for (const name of await git.listBranches({ fs: ctx.fs, gitdir: from })) {
    const oid = await git.resolveRef({ fs: ctx.fs, gitdir: from, ref: `refs/heads/${name}` });
    await copyReachable(ctx, from, to, oid);
    await git.writeRef({ fs: ctx.fs, gitdir: to, ref: `refs/remotes/${remote}/${name}`, value: oid, force: true });
    branches[name] = oid;
  }
  for (const name of await git.listTags({ fs: ctx.fs, gitdir: from })) {
    const oid = await git.resolveRef({ fs: ctx.fs, gitdir: from, ref: `refs/tags/${name}` });
    await copyReachable(ctx, from, to, oid);
    await git.writeRef({ fs: ctx.fs, gitdir: to, ref: `refs/tags/${name}`, value: oid, force: true });
  }
  const headBranch = await git.currentBranch({ fs: ctx.fs, gitdir: from }).catch(() => undefined);
  return { branches, headBranch: headBranch ?? undefined };
}

export async function pushLocal(
  ctx: GitContext,
  root: string,
  target: string,
  localRef: string,
  remoteRef: string,
  force: boolean,
): Promise<{ oid: string }> {
  const to = await gitdirOf(ctx, target);
  const from = joinPath(root, ".git");
  const oid = await git.resolveRef({ fs: ctx.fs, gitdir: from, ref: localRef });
  const ref = remoteRef.startsWith("refs/") ? remoteRef : `refs/heads/${remoteRef}`;
  const current = await git.resolveRef({ fs: ctx.fs, gitdir: to, ref }).catch(() => undefined);
  await copyReachable(ctx, from, to, oid);
  if (current && current !== oid && !force) {
    const fastForward = await git.isDescendent({ fs: ctx.fs, gitdir: to, oid, ancestor: current, depth: -1 });
    if (!fastForward) {
      throw new GitError("ECONFLICT", `rejected ${ref} (non-fast-forward): fetch and merge first, or push --force`);
    }
  }
  await git.writeRef({ fs: ctx.fs, gitdir: to, ref, value: oid, force: true });
  return { oid };
}

/** Depth-first over commits, trees and tags; stops at objects the target already has. */
async function copyReachable(ctx: GitContext, from: string, to: string, start: string): Promise<void> {
  const stack = [start];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const oid = stack.pop() as string;
    if (seen.has(oid)) continue;
    seen.add(oid);
    if (await has(ctx, to, oid)) continue;
    let object: Awaited<ReturnType<typeof git.readObject>>;
    try {
      object = await git.readObject({ fs: ctx.fs, gitdir: from, oid, format: "content", cache: ctx.cache });
    } catch {
      continue; // beyond a shallow source's boundary
    }
    await git.writeObject({
      fs: ctx.fs,
      gitdir: to,
      type: object.type as "blob" | "tree" | "commit" | "tag",
      object: object.object as Uint8Array,
      format: "content",
    });
    const parsed = await git.readObject({ fs: ctx.fs, gitdir: from, oid, format: "parsed", cache: ctx.cache });
    if (parsed.type === "commit") {
      const commit = parsed.object as { tree: string; parent: string[] };
      stack.push(commit.tree, ...commit.parent);
    } else if (parsed.type === "tree") {
      for (const entry of parsed.object as Array<{ oid: string; type: string }>) {
        if (entry.type !== "commit") stack.push(entry.oid);
      }
    } else if (parsed.type === "tag") {
      stack.push((parsed.object as { object: string }).object);
    }
  }
}

async function has(ctx: GitContext, gitdir: string, oid: string): Promise<boolean> {
  try {
    await git.readObject({ fs: ctx.fs, gitdir, oid, format: "deflated", cache: ctx.cache });
    return true;
  } catch {
    return false;
  }
}

/**
 * Revision syntax: refs, full and short oids, and the suffixes `^`, `^N`
 * and `~N` in any combination (`HEAD~2^2`). Anything unresolvable is
 * EPATHSPEC (128), like git's "unknown revision".
 */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError } from "../errors.js";
import { requireRepo } from "../paths.js";

export interface RevParseOptions {
  dir?: string;
  rev: string;
}

export async function revParse(ctx: GitContext, options: RevParseOptions): Promise<string> {
  const root = await requireRepo(ctx, options.dir);
  return resolveRevision(ctx, root, options.rev);
}

export async function resolveRevision(ctx: GitContext, root: string, rev: string): Promise<string> {
  const match = /^(.*?)((?:[~^]\d*)*)$/.exec(rev);
  const base = match?.[1] ?? rev;
  const suffix = match?.[2] ?? "";
  let oid = await resolveBase(ctx, root, base === "" ? "HEAD" : base, rev);
  for (const [, op, count] of suffix.matchAll(/([~^])(\d*)/g)) {
    const n = count === "" ? 1 : Number(count);
    if (op === "~") {
      for (let i = 0; i < n; i++) oid = await parent(ctx, root, oid, 1, rev);
    } else if (n > 0) {
      oid = await parent(ctx, root, oid, n, rev);
    }
  }
  return oid;
}

async function resolveBase(ctx: GitContext, root: string, base: string, rev: string): Promise<string> {
  try {
    return await git.resolveRef({ fs: ctx.fs, dir: root, ref: base });
  } catch {
    // Not a ref: maybe an (abbreviated) object id.
  }
  if (/^[0-9a-f]{4,40}$/.test(base)) {
    try {
      return await git.expandOid({ fs: ctx.fs, dir: root, oid: base, cache: ctx.cache });
    } catch {
      // fall through to the unknown-revision error
    }
  }
  throw unknownRevision(rev);
}

async function parent(ctx: GitContext, root: string, oid: string, n: number, rev: string): Promise<string> {
  const peeled = await peelToCommit(ctx, root, oid);
  const { commit } = await git.readCommit({ fs: ctx.fs, dir: root, oid: peeled, cache: ctx.cache });
  const next = commit.parent[n - 1];
  if (next === undefined) throw unknownRevision(rev);
  return next;
}

/** Annotated tags point at commits through a tag object; follow them. */
export async function peelToCommit(ctx: GitContext, root: string, oid: string): Promise<string> {
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    const object = await git.readObject({ fs: ctx.fs, dir: root, oid: current, format: "parsed", cache: ctx.cache });
    if (object.type === "commit") return current;
    if (object.type !== "tag") break;
    current = (object.object as { object: string }).object;
  }
  throw new GitError("EPATHSPEC", `${oid} is not a commit`);
}

export function unknownRevision(rev: string): GitError {
  return new GitError("EPATHSPEC", `ambiguous argument '${rev}': unknown revision or path not in the working tree`);
}

export function shortOid(oid: string): string {
  return oid.slice(0, 7);
}

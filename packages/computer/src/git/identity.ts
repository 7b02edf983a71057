/**
 * Who a commit is by. Each field resolves on its own, first hit wins:
 * the explicit identity → `GIT_AUTHOR_*` / `GIT_COMMITTER_*` in env → the
 * repository's `.git/config` `user.*` → the client's `defaultIdentity`.
 * The committer falls back to the author (so `commit --author` alone works).
 * Nothing found is git's "author identity unknown" (exit 128).
 */
import git from "isomorphic-git";
import type { GitIdentity } from "../workspace/capabilities.js";
import type { GitContext } from "./context.js";
import { type GitError, MissingIdentityError } from "./errors.js";

export type GitEnv = Readonly<Record<string, string | undefined>>;

export interface ResolvedIdentities {
  author: GitIdentity;
  committer: GitIdentity;
}

export async function resolveIdentities(
  ctx: GitContext,
  root: string,
  explicit: { author?: GitIdentity | undefined; committer?: GitIdentity | undefined; env?: GitEnv | undefined },
): Promise<ResolvedIdentities> {
  const env = explicit.env ?? {};
  const config = {
    name: await configString(ctx, root, "user.name"),
    email: await configString(ctx, root, "user.email"),
  };
  const fallback = ctx.defaultIdentity;
  const author = pick([explicit.author, fromEnv(env, "AUTHOR"), config, fallback]);
  if (!author) throw unknownIdentity("author");
  const committer = pick([explicit.committer, fromEnv(env, "COMMITTER"), config, fallback, author]);
  if (!committer) throw unknownIdentity("committer");
  return { author, committer };
}

/** `"Name <email>"` as git's `--author` takes it. */
export function parseIdentity(text: string): GitIdentity | undefined {
  const match = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(text);
  if (!match || match[1] === undefined || match[2] === undefined || match[1] === "") return undefined;
  return { name: match[1], email: match[2] };
}

type Partial2 = { name?: string | undefined; email?: string | undefined } | undefined;

function pick(sources: Partial2[]): GitIdentity | undefined {
  const name = sources.find((source) => source?.name)?.name;
  const email = sources.find((source) => source?.email)?.email;
  return name && email ? { name, email } : undefined;
}

function fromEnv(env: GitEnv, role: "AUTHOR" | "COMMITTER"): Partial2 {
  return { name: env[`GIT_${role}_NAME`], email: env[`GIT_${role}_EMAIL`] };
}

async function configString(ctx: GitContext, root: string, path: string): Promise<string | undefined> {
  const value: unknown = await git.getConfig({ fs: ctx.fs, dir: root, path });
  return typeof value === "string" && value !== "" ? value : undefined;
}

function unknownIdentity(role: "author" | "committer"): GitError {
  return new MissingIdentityError({
    message:
      `${role} identity unknown: set user.name and user.email with git config, ` +
      `or GIT_${role.toUpperCase()}_NAME and GIT_${role.toUpperCase()}_EMAIL, or pass defaultGitIdentity`,
  });
}

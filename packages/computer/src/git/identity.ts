/**
 * Who a commit is by. Each field resolves on its own, first hit wins:
 * the explicit identity → `GIT_AUTHOR_*` / `GIT_COMMITTER_*` in env → the
 * repository's `.git/config` `user.*` → the client's `defaultIdentity`.
 * The committer falls back to the author (so `commit --author` alone works).
 * Nothing found is git's "author identity unknown" (exit 128).
 */
import git from "isomorphic-git";
import type { GitIdentity } from "../contracts/capabilities.js";
import type { GitContext } from "./context.js";
import { type GitError, MissingIdentityError } from "./errors.js";

export type GitEnv = Readonly<Record<string, string | undefined>>;

/** An identity with, optionally, the time to record (seconds since the epoch; minutes east of UTC). Default: now, here. */
export interface GitSignature extends GitIdentity {
  timestamp?: number;
  timezoneOffset?: number;
}

export interface ResolvedIdentities {
  author: GitSignature;
  committer: GitSignature;
}

export async function resolveIdentities(
  ctx: GitContext,
  root: string,
  explicit: { author?: GitSignature | undefined; committer?: GitSignature | undefined; env?: GitEnv | undefined },
): Promise<ResolvedIdentities> {
  const env = explicit.env ?? {};
  const config = {
    name: await configString(ctx, root, "user.name"),
    email: await configString(ctx, root, "user.email"),
  };
  const fallback = ctx.defaultIdentity;
  const author = whole(explicit.author) ?? pick([explicit.author, fromEnv(env, "AUTHOR"), config, fallback]);
  if (!author) throw new MissingIdentityError();
  const committer =
    whole(explicit.committer) ?? pick([explicit.committer, fromEnv(env, "COMMITTER"), config, fallback, author]);
  if (!committer) throw unknownCommitter();
  return { author, committer };
}

/** A complete explicit identity is taken as given, with its time if it has one. */
function whole(identity: GitSignature | undefined): GitSignature | undefined {
  if (!identity?.name || !identity.email) return undefined;
  const { name, email, timestamp, timezoneOffset } = identity;
  return {
    name,
    email,
    ...(timestamp !== undefined ? { timestamp } : {}),
    ...(timezoneOffset !== undefined ? { timezoneOffset } : {}),
  };
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

function unknownCommitter(): GitError {
  return new MissingIdentityError({
    message:
      "committer identity unknown: set user.name and user.email with git config, " +
      "or GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL, or pass defaultGitIdentity",
  });
}

/**
 * `artifacts create <name>`: the repository (or, with --force, the existing
 * one), a token (write by default), and a git remote holding the
 * credentialed URL — registered through the caller's `remoteAdd` seam when
 * there is one, else returned as the command to run.
 */

import { flag, option } from "../../git/cli/args.js";
import { GitUsageError } from "../../git/errors.js";
import { credentialedRemote } from "../artifact.js";
import type { TokenScope } from "../types.js";
import { parseTtl } from "./ttl.js";
import { type ArtifactsAction, failure, json } from "./types.js";

export const CREATE_FLAGS = {
  scope: { type: "string" },
  ttl: { type: "string" },
  remote: { type: "string" },
  "default-branch": { type: "string" },
  description: { type: "string" },
  force: { type: "boolean" },
} as const;

export const create: ArtifactsAction = async (artifact, args, request) => {
  const name = single(args.positionals, "create <name>");
  const scope = scopeOf(option(args, "scope"), "write");
  const ttlText = option(args, "ttl");
  const ttl = ttlText === undefined ? undefined : parseTtl(ttlText);
  const force = flag(args, "force");
  const existing = await artifact.get(name);
  if (existing && !force) return failure(`repository '${name}' already exists; pass --force to reuse it`);
  const description = option(args, "description");
  const defaultBranch = option(args, "default-branch");
  let repo: { name: string; remote: string; defaultBranch: string } | null = existing;
  let plaintext: string | undefined;
  if (!repo) {
    const created = await artifact.create(name, {
      ...(description ? { description } : {}),
      ...(defaultBranch ? { setDefaultBranch: defaultBranch } : {}),
    });
    repo = created;
    // A new repository comes with a write token of the default lifetime; minting another would leave that one live, unused.
    if (scope === "write" && ttl === undefined) plaintext = created.token;
  }
  plaintext ??= (await artifact.createToken(name, scope, ttl)).plaintext;
  const credentialed = credentialedRemote(repo.remote, plaintext);
  const gitRemote = option(args, "remote") ?? name;
  let remoteRegistered = false;
  if (request.remoteAdd) {
    const added = await request.remoteAdd({ name: gitRemote, url: credentialed, force });
    if (added === "exists") return failure(`git remote '${gitRemote}' already exists; pass --force to replace it`);
    remoteRegistered = true;
  }
  return json({
    name: repo.name,
    remote: repo.remote,
    credentialedRemote: credentialed,
    defaultBranch: repo.defaultBranch,
    gitRemote,
    scope,
    plaintext,
    remoteRegistered,
    ...(remoteRegistered ? {} : { remoteAddCommand: `git remote add ${gitRemote} ${credentialed}` }),
  });
};

/** `artifacts share <name>`: a read token (by default) as one credentialed URL line. */
export const share: ArtifactsAction = async (artifact, args) => {
  const name = single(args.positionals, "share <name>");
  const scope = scopeOf(option(args, "scope"), "read");
  const ttlText = option(args, "ttl");
  const ttl = ttlText === undefined ? undefined : parseTtl(ttlText);
  const repo = await artifact.get(name);
  if (!repo) return failure(`repository '${name}' not found`);
  const token = await artifact.createToken(name, scope, ttl);
  return { stdout: `${credentialedRemote(repo.remote, token.plaintext)}\n` };
};

export function scopeOf(value: string | undefined, fallback: TokenScope): TokenScope {
  if (value === undefined) return fallback;
  if (value !== "read" && value !== "write") throw new GitUsageError(`invalid --scope '${value}': read or write`);
  return value;
}

export function single(positionals: readonly string[], usage: string): string {
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new GitUsageError(`usage: artifacts ${usage}`);
  return name;
}

/**
 * `artifacts create <name>`: the repository (or, with --force, the existing
 * one), a token (write by default) and a git remote holding the
 * credentialed URL — registered through the caller's `remoteAdd` seam when
 * there is one, else returned as the command to run. `artifacts share
 * <name>`: a token (read by default) as one credentialed URL line.
 */

import { credentialedRemote } from "../artifact.js";
import { findRepo } from "../binding.js";
import { parseFlags, positionals, scopeFlag } from "./args.js";
import { ttlFlag } from "./ttl.js";
import { type ArtifactsAction, failure, json, ok } from "./types.js";

export const create: ArtifactsAction = async (client, argv, request) => {
  const parsed = parseFlags(argv, {
    scope: "value",
    ttl: "value",
    remote: "value",
    "default-branch": "value",
    description: "value",
    force: "boolean",
  });
  const [name] = positionals(parsed, ["name"]) as [string];
  const scope = scopeFlag(parsed, "write");
  const ttl = ttlFlag(parsed.values);
  const force = parsed.booleans.has("force");
  const gitRemote = parsed.values.get("remote") ?? name;
  const existing = await findRepo(client, name);
  if (existing && !force)
    return failure("create", `repository '${name}' already exists; pass --force to reuse it and refresh the remote`);
  let repo: { name: string; remote: string; defaultBranch: string } | undefined = existing;
  if (!repo) {
    const description = parsed.values.get("description");
    const setDefaultBranch = parsed.values.get("default-branch");
    const created = await client.create(name, {
      ...(description !== undefined ? { description } : {}),
      ...(setDefaultBranch !== undefined ? { setDefaultBranch } : {}),
    });
    repo = created;
    // The token a new repository comes with is never shown here: revoke it rather than leave it live, unused.
    await client.revokeToken(name, created.token).catch(() => false);
  }
  const token = await client.createToken(name, scope, ttl);
  const url = credentialedRemote(repo.remote, token.plaintext);
  let remoteRegistered = false;
  if (request.remoteAdd) {
    const added = await request.remoteAdd({ name: gitRemote, url, force });
    if (!added.ok) {
      if (added.exists === true && !force)
        return failure("create", `git remote '${gitRemote}' already exists; pass --force to replace its URL`);
      return failure("create", `git remote '${gitRemote}' not registered${added.message ? `: ${added.message}` : ""}`);
    }
    remoteRegistered = true;
  }
  return json({
    name: repo.name,
    remote: repo.remote,
    credentialedRemote: url,
    defaultBranch: repo.defaultBranch,
    gitRemote,
    scope,
    token: token.plaintext,
    tokenExpiresAt: token.expiresAt,
    remoteRegistered,
    ...(request.remoteAdd ? {} : { remoteAddCommand: `git remote add ${gitRemote} ${url}` }),
  });
};

export const share: ArtifactsAction = async (client, argv) => {
  const parsed = parseFlags(argv, { scope: "value", ttl: "value" });
  const [name] = positionals(parsed, ["name"]) as [string];
  const scope = scopeFlag(parsed, "read");
  const ttl = ttlFlag(parsed.values);
  const repo = await client.get(name);
  const token = await client.createToken(name, scope, ttl);
  return ok(`${credentialedRemote(repo.remote, token.plaintext)}\n`);
};

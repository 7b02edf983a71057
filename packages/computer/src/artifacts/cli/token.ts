/** `artifacts token create|list|get|delete` (`revoke` is an alias of delete). Only `create` prints a secret. */
import { parseFlags, positionals, scopeFlag } from "./args.js";
import { ttlFlag } from "./ttl.js";
import { type ArtifactsAction, failure, json, ok } from "./types.js";

export const tokenCreate: ArtifactsAction = async (client, argv) => {
  const parsed = parseFlags(argv, { scope: "value", ttl: "value" });
  const [repo] = positionals(parsed, ["repo"]) as [string];
  return json(await client.createToken(repo, scopeFlag(parsed, undefined), ttlFlag(parsed.values)));
};

export const tokenList: ArtifactsAction = async (client, argv) => {
  const [repo] = positionals(parseFlags(argv, {}), ["repo"]) as [string];
  return json(await client.listTokens(repo));
};

export const tokenGet: ArtifactsAction = async (client, argv) => {
  const [repo, id] = positionals(parseFlags(argv, {}), ["repo", "id"]) as [string, string];
  return json(await client.getToken(repo, id));
};

export const tokenDelete: ArtifactsAction = async (client, argv) => {
  const [repo, tokenOrId] = positionals(parseFlags(argv, {}), ["repo", "id"]) as [string, string];
  if (!(await client.revokeToken(repo, tokenOrId))) return failure("token delete", `no such token in '${repo}'`);
  return ok("Revoked token\n");
};

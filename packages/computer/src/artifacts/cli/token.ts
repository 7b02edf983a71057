/** `artifacts token create|list|get|delete` (`revoke` is an alias of delete). */
import { option } from "../../git/cli/args.js";
import { GitUsageError } from "../../git/errors.js";
import { scopeOf, single } from "./create.js";
import { parseTtl } from "./ttl.js";
import { type ArtifactsAction, failure, json } from "./types.js";

export const TOKEN_FLAGS = { scope: { type: "string" }, ttl: { type: "string" } } as const;

export const token: ArtifactsAction = async (artifact, args) => {
  const [action, ...rest] = args.positionals;
  switch (action) {
    case "create": {
      const ttl = option(args, "ttl");
      const scope = scopeOf(option(args, "scope"), "write");
      return json(
        await artifact.createToken(
          single(rest, "token create <name>"),
          scope,
          ttl === undefined ? undefined : parseTtl(ttl),
        ),
      );
    }
    case "list":
      return json(await artifact.listTokens(single(rest, "token list <name>")));
    case "get": {
      const [name, id] = pair(rest, "token get <name> <id>");
      return json(await artifact.getToken(name, id));
    }
    case "delete":
    case "revoke": {
      const [name, id] = pair(rest, "token delete <name> <token-or-id>");
      const revoked = await artifact.revokeToken(name, id);
      return revoked ? json({ name, id, revoked }) : failure(`token '${id}' not found`);
    }
    default:
      throw new GitUsageError(`unknown token subcommand '${action ?? ""}': create, list, get or delete`);
  }
};

function pair(rest: readonly string[], usage: string): [string, string] {
  const [a, b, ...extra] = rest;
  if (!a || !b || extra.length > 0) throw new GitUsageError(`usage: artifacts ${usage}`);
  return [a, b];
}

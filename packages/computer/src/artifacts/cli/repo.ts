/** `artifacts repo create|get|list|delete|import`: JSON in, JSON out. */
import { flag, option } from "../../git/cli/args.js";
import { GitUsageError } from "../../git/errors.js";
import { single } from "./create.js";
import { type ArtifactsAction, failure, json } from "./types.js";

export const REPO_FLAGS = {
  description: { type: "string" },
  "read-only": { type: "boolean" },
  "default-branch": { type: "string" },
  url: { type: "string" },
  branch: { type: "string" },
  depth: { type: "string" },
} as const;

export const repo: ArtifactsAction = async (artifact, args) => {
  const [action, ...rest] = args.positionals;
  const description = option(args, "description");
  const common = { ...(description ? { description } : {}), ...(flag(args, "read-only") ? { readOnly: true } : {}) };
  switch (action) {
    case "create": {
      const branch = option(args, "default-branch");
      return json(
        await artifact.create(single(rest, "repo create <name>"), {
          ...common,
          ...(branch ? { setDefaultBranch: branch } : {}),
        }),
      );
    }
    case "get": {
      const name = single(rest, "repo get <name>");
      const found = await artifact.get(name);
      return found ? json(found) : failure(`repository '${name}' not found`);
    }
    case "list":
      if (rest.length > 0) throw new GitUsageError("usage: artifacts repo list");
      return json(await artifact.list());
    case "delete": {
      const name = single(rest, "repo delete <name>");
      const deleted = await artifact.delete(name);
      return deleted ? json({ name, deleted }) : failure(`repository '${name}' not found`);
    }
    case "import": {
      const name = single(rest, "repo import <name> --url <url>");
      const url = option(args, "url");
      if (!url) throw new GitUsageError("repo import needs --url <url>");
      const depth = option(args, "depth");
      if (depth !== undefined && !/^\d+$/.test(depth)) throw new GitUsageError(`invalid --depth '${depth}'`);
      const branch = option(args, "branch");
      return json(
        await artifact.import(
          name,
          { url, ...(branch ? { branch } : {}), ...(depth ? { depth: Number(depth) } : {}) },
          common,
        ),
      );
    }
    default:
      throw new GitUsageError(`unknown repo subcommand '${action ?? ""}': create, get, list, delete or import`);
  }
};

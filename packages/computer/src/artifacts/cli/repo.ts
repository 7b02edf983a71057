/** `artifacts repo create|get|list|delete|import`: JSON out (delete prints one line). */
import { parseFlags, positionals, UsageError } from "./args.js";
import { type ArtifactsAction, failure, json, ok } from "./types.js";

export const repoCreate: ArtifactsAction = async (client, argv) => {
  const parsed = parseFlags(argv, { description: "value", "default-branch": "value", "read-only": "boolean" });
  const [name] = positionals(parsed, ["name"]) as [string];
  const description = parsed.values.get("description");
  const setDefaultBranch = parsed.values.get("default-branch");
  return json(
    await client.create(name, {
      ...(description !== undefined ? { description } : {}),
      ...(setDefaultBranch !== undefined ? { setDefaultBranch } : {}),
      readOnly: parsed.booleans.has("read-only"),
    }),
  );
};

export const repoGet: ArtifactsAction = async (client, argv) => {
  const [name] = positionals(parseFlags(argv, {}), ["name"]) as [string];
  return json(await client.get(name));
};

export const repoList: ArtifactsAction = async (client, argv) => {
  positionals(parseFlags(argv, {}), []);
  return json(await client.list());
};

export const repoDelete: ArtifactsAction = async (client, argv) => {
  const [name] = positionals(parseFlags(argv, {}), ["name"]) as [string];
  if (!(await client.delete(name))) return failure("repo delete", `repository '${name}' not found`);
  return ok(`Deleted ${name}\n`);
};

export const repoImport: ArtifactsAction = async (client, argv) => {
  const parsed = parseFlags(argv, {
    url: "value",
    branch: "value",
    depth: "value",
    "read-only": "boolean",
    description: "value",
  });
  const [name] = positionals(parsed, ["name"]) as [string];
  const url = parsed.values.get("url");
  if (url === undefined) throw new UsageError("missing --url");
  const depthText = parsed.values.get("depth");
  const depth = depthText === undefined ? undefined : Number.parseInt(depthText, 10);
  if (depth !== undefined && !(depth >= 1))
    throw new UsageError(`--depth is a positive integer, not ${JSON.stringify(depthText)}`);
  const branch = parsed.values.get("branch");
  const description = parsed.values.get("description");
  return json(
    await client.import(
      name,
      { url, ...(branch !== undefined ? { branch } : {}), ...(depth !== undefined ? { depth } : {}) },
      { ...(description !== undefined ? { description } : {}), readOnly: parsed.booleans.has("read-only") },
    ),
  );
};

/**
 * `@cloudflare/computer/modules/artifacts`: `createArtifactsModule()`, the
 * `ws:artifacts` host module over the Workspace's Artifacts client: the
 * client's calls by the names 0.8.0 gives them, plus git tokens (`createToken`)
 * and a clone-ready credentialed URL (`share`). Mutations and write tokens
 * need a read-write backend; importing from a remote URL needs `allowNetwork`.
 */
import { credentialedRemote } from "../artifacts/artifact.js";
import type { ArtifactImportOptions, ArtifactImportSource, ArtifactScope } from "../artifacts/option-names.js";
import type { CreateRepoOptions } from "../artifacts/types.js";
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import { optionsArg, requireWrite } from "./access.js";
import { parseDurationMs } from "./duration.js";
import type { WorkspaceModuleFactory, WorkspaceModuleFunctions, WorkspaceModuleHost } from "./types.js";

export interface ArtifactsModuleOptions {
  /** Allow `importArtifact` from a remote URL (the request leaves from the Durable Object). Default false. */
  readonly allowNetwork?: boolean;
}

function repoName(value: WorkspaceRuntimeValue | undefined, what: string): string {
  if (typeof value !== "string" || value === "") throw new TypeError(`${what}: name must be a non-empty string.`);
  return value;
}

function scopeOf(value: WorkspaceRuntimeValue | undefined, what: string): ArtifactScope {
  if (value === undefined || value === null) return "read";
  if (value === "read" || value === "write") return value;
  throw new TypeError(`${what}: scope must be "read" or "write", got ${JSON.stringify(value)}.`);
}

/** Whole seconds, or a duration string such as `"15m"`. */
function ttlSeconds(value: WorkspaceRuntimeValue | undefined, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new TypeError(`${what}: ttl must be a positive whole number of seconds.`);
    return value;
  }
  if (typeof value !== "string") throw new TypeError(`${what}: ttl must be a number of seconds or a duration.`);
  return Math.ceil(parseDurationMs(value) / 1000);
}

export function createArtifactsModule(options: ArtifactsModuleOptions = {}): WorkspaceModuleFactory {
  const allowNetwork = options.allowNetwork === true;
  const factory = (host: WorkspaceModuleHost): WorkspaceModuleFunctions => ({
    create([name, createOptions], context) {
      requireWrite(context, "Artifacts create");
      return host.artifacts.create(
        repoName(name, "create"),
        optionsArg(createOptions, "create") as unknown as CreateRepoOptions,
      );
    },
    get([name]) {
      return host.artifacts.get(repoName(name, "get"));
    },
    list() {
      return host.artifacts.list();
    },
    importArtifact([name, source, importOptions], context) {
      requireWrite(context, "Artifacts import");
      if (!allowNetwork) throw new Error("Artifacts import requires createArtifactsModule({ allowNetwork: true }).");
      return host.artifacts.import(
        repoName(name, "importArtifact"),
        source as unknown as ArtifactImportSource,
        optionsArg(importOptions, "importArtifact") as unknown as ArtifactImportOptions,
      );
    },
    deleteArtifact([name], context) {
      requireWrite(context, "Artifacts delete");
      return host.artifacts.delete(repoName(name, "deleteArtifact"));
    },
    async createToken([name, scope, ttl], context) {
      const tokenScope = scopeOf(scope, "createToken");
      if (tokenScope === "write") requireWrite(context, "A write token");
      return {
        ...(await host.artifacts.createToken(
          repoName(name, "createToken"),
          tokenScope,
          ttlSeconds(ttl, "createToken"),
        )),
      };
    },
    async share([name, shareOptions], context) {
      const repo = repoName(name, "share");
      const given = optionsArg(shareOptions, "share");
      const tokenScope = scopeOf(given.scope, "share");
      if (tokenScope === "write") requireWrite(context, "A write token");
      const ttl = ttlSeconds(given.ttl, "share");
      const info = await host.artifacts.get(repo);
      const token = await host.artifacts.createToken(repo, tokenScope, ttl);
      return credentialedRemote(info.remote, token.plaintext);
    },
  });
  const description = `Git repositories in Cloudflare Artifacts: \`create(name)\`, \`get(name)\`, \`list()\`, \`importArtifact(name, source)\`, \`deleteArtifact(name)\`.${
    allowNetwork ? "" : " Importing from a remote URL is not allowed."
  } \`createToken(name, scope?, ttl?)\` mints a git token (read by default); \`share(name, { scope?, ttl? })\` returns a clone-ready URL with a token in it, a credential never to print or return. \`ttl\` is seconds or a duration such as "15m".`;
  return Object.assign(factory, { description });
}

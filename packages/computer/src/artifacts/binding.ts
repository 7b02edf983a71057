/**
 * Where the scoped client meets Cloudflare's binding. The binding throws
 * `NOT_FOUND` from `get` where the client answers null, mints, lists and
 * revokes tokens on the repository handle `get` returns, and takes `import`
 * as one `{ source, target }` object; these functions are the only places
 * that know it.
 *
 * Nothing here asks the binding what it is (`"x" in binding`): on Cloudflare
 * it may be an RPC stub, which answers every property.
 */
import type {
  ArtifactsCreatedRepo,
  ArtifactsRepoHandle,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  ImportOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

/** The repository's handle, or null when the binding says `NOT_FOUND`; other errors pass through. */
export async function findRepo(binding: Artifacts, name: string): Promise<ArtifactsRepoHandle | null> {
  try {
    return await binding.get(name);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The binding's errors are `ArtifactsError`s with a string `code`; a missing repository is `NOT_FOUND`. */
export function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "NOT_FOUND";
}

/**
 * The repository's metadata (`info()`) as a plain object, field by field: on
 * Cloudflare it is an RPC result whose fields need not be own properties,
 * while this value is printed as JSON and crosses Workers RPC (ws:artifacts).
 */
export function repoInfo(repo: ArtifactsRepoInfo, name: string): ArtifactsRepoInfo {
  return {
    id: repo.id,
    name,
    description: repo.description,
    defaultBranch: repo.defaultBranch,
    createdAt: repo.createdAt,
    updatedAt: repo.updatedAt,
    lastPushAt: repo.lastPushAt,
    source: repo.source,
    readOnly: repo.readOnly,
    remote: repo.remote,
  };
}

/** `import` takes one object: the source, and the target's name and options. */
export function importRepo(
  binding: Artifacts,
  name: string,
  source: ImportSource,
  options: ImportOptions,
): Promise<ArtifactsCreatedRepo> {
  return binding.import({ source, target: { name, opts: options } });
}

/** Tokens are the repository handle's: each of these is null (or false) when the repository is missing. */
export async function createToken(
  binding: Artifacts,
  name: string,
  scope: TokenScope,
  ttlSec: number | undefined,
): Promise<ArtifactsToken | null> {
  const repo = await findRepo(binding, name);
  return repo ? repo.createToken(scope, ttlSec) : null;
}

export async function listTokens(binding: Artifacts, name: string): Promise<ArtifactsTokenInfo[] | null> {
  const repo = await findRepo(binding, name);
  return repo ? (await repo.listTokens()).tokens : null;
}

export async function revokeToken(binding: Artifacts, name: string, tokenOrId: string): Promise<boolean> {
  const repo = await findRepo(binding, name);
  return repo ? repo.revokeToken(tokenOrId) : false;
}

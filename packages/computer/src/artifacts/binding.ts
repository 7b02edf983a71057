/**
 * Where the scoped client meets Cloudflare's binding: its errors carry a
 * string `code` (`NOT_FOUND` from `get`), `import` takes one
 * `{ source, target }` object, and `info()` answers an RPC value whose
 * fields need not be own properties. These functions are the only places
 * that know it.
 *
 * Nothing here asks the binding what it is (`"x" in binding`): on Cloudflare
 * it may be an RPC stub, which answers every property.
 */
import { ArtifactError } from "./errors.js";
import type { ArtifactsCreatedRepo, ArtifactsRepoInfo, ImportOptions, ImportSource } from "./types.js";

/** A missing repository: the binding's `NOT_FOUND`, or our `ENOTFOUND`. */
export function isNotFound(error: unknown): boolean {
  if (error instanceof ArtifactError) return error.code === "ENOTFOUND";
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "NOT_FOUND";
}

/** The repository's metadata, or undefined when it does not exist; other errors pass through. */
export async function findRepo(
  client: { get(name: string): Promise<ArtifactsRepoInfo> },
  name: string,
): Promise<ArtifactsRepoInfo | undefined> {
  try {
    return await client.get(name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The repository's metadata (`info()`) as a plain object, field by field:
 * this value is printed as JSON and crosses Workers RPC (ws:artifacts).
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
  options: ImportOptions | undefined,
): Promise<ArtifactsCreatedRepo> {
  return binding.import({ source, target: { name, ...(options ? { opts: options } : {}) } });
}

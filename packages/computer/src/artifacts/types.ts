/**
 * The Artifacts binding as this package uses it. The binding is
 * Cloudflare-only; this is the interface the reference's client implies
 * (one method per verb, tokens per repository, cursor paging), so tests run
 * against `MemoryArtifactsBinding` and production against the real one.
 */

export type TokenScope = "read" | "write";

export interface ArtifactsRepoInfo {
  name: string;
  /** The repository's git URL (https), without credentials. */
  remote: string;
  defaultBranch: string;
  description?: string;
  readOnly: boolean;
  /** ISO 8601. */
  createdAt: string;
}

export interface ArtifactsTokenInfo {
  id: string;
  scope: TokenScope;
  /** ISO 8601. */
  expiresAt: string;
  createdAt: string;
}

export interface ArtifactsToken extends ArtifactsTokenInfo {
  /** The secret, shown once; may end in `?expires=<unix seconds>`. */
  plaintext: string;
}

export interface ArtifactsListPage {
  repos: ArtifactsRepoInfo[];
  /** Present while more pages follow. */
  cursor?: string | null;
}

export interface CreateRepoOptions {
  description?: string;
  readOnly?: boolean;
  setDefaultBranch?: string;
}

export interface ImportSource {
  url: string;
  branch?: string;
  depth?: number;
}

export interface ArtifactsBinding {
  create(name: string, options?: CreateRepoOptions): Promise<ArtifactsRepoInfo>;
  get(name: string): Promise<ArtifactsRepoInfo | null>;
  list(options?: { limit?: number; cursor?: string }): Promise<ArtifactsListPage>;
  import(
    name: string,
    source: ImportSource,
    options?: Omit<CreateRepoOptions, "setDefaultBranch">,
  ): Promise<ArtifactsRepoInfo>;
  delete(name: string): Promise<boolean>;
  createToken(name: string, scope: TokenScope, ttlSec?: number): Promise<ArtifactsToken>;
  listTokens(name: string): Promise<ArtifactsTokenInfo[]>;
  getToken(name: string, id: string): Promise<ArtifactsTokenInfo | null>;
  revokeToken(name: string, tokenOrId: string): Promise<boolean>;
}

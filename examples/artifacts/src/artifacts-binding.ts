/**
 * The Artifacts binding as `@cloudflare/computer/artifacts` wants it.
 *
 * The package's `ArtifactsBinding` is namespace-level throughout: `get`
 * answers null for a missing repository and tokens are minted with
 * `createToken(name, scope, ttl)`. The binding Cloudflare gives a Worker
 * (`Artifacts` in @cloudflare/workers-types) throws `NOT_FOUND` from `get`
 * and hangs tokens off the repository handle it returns. This adapter maps
 * one onto the other, so the same code runs on the real binding and on the
 * local stand-in (`src/local-artifacts.ts`), which has the real interface.
 */
import type {
  ArtifactsBinding,
  ArtifactsRepoInfo as PackageRepoInfo,
  ArtifactsTokenInfo as PackageTokenInfo,
} from "@cloudflare/computer/artifacts";

export function fromCloudflareArtifacts(artifacts: Artifacts): ArtifactsBinding {
  const repoOrNull = async (name: string): Promise<ArtifactsRepo | null> => {
    try {
      return await artifacts.get(name);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  };
  return {
    async create(name, options = {}) {
      const created = await artifacts.create(name, options);
      return {
        ...packageInfo(created),
        readOnly: options.readOnly === true,
        createdAt: new Date().toISOString(),
      };
    },
    async get(name) {
      const repo = await repoOrNull(name);
      return repo ? packageInfo(repo) : null;
    },
    async list(options = {}) {
      const page = await artifacts.list(options);
      // A listed repository has no `remote`; the handle from `get` does.
      const repos = await Promise.all(page.repos.map(async ({ name }) => repoOrNull(name)));
      return {
        repos: repos.filter((repo): repo is ArtifactsRepo => repo !== null).map(packageInfo),
        ...(page.cursor ? { cursor: page.cursor } : {}),
      };
    },
    async import(name, source, options = {}) {
      const imported = await artifacts.import({ source, target: { name, opts: options } });
      return {
        ...packageInfo(imported),
        readOnly: options.readOnly === true,
        createdAt: new Date().toISOString(),
      };
    },
    delete: (name) => artifacts.delete(name),
    async createToken(name, scope, ttlSec) {
      const token = await (await artifacts.get(name)).createToken(scope, ttlSec);
      return { ...token, createdAt: new Date().toISOString() };
    },
    async listTokens(name) {
      const { tokens } = await (await artifacts.get(name)).listTokens();
      return tokens.map(packageToken);
    },
    async getToken(name, id) {
      const repo = await repoOrNull(name);
      const token = repo ? (await repo.listTokens()).tokens.find((candidate) => candidate.id === id) : undefined;
      return token ? packageToken(token) : null;
    },
    async revokeToken(name, tokenOrId) {
      const repo = await repoOrNull(name);
      return repo ? repo.revokeToken(tokenOrId) : false;
    },
  };
}

/** By `code`, and by message as well: a custom property may not survive every RPC hop. */
function isNotFound(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "NOT_FOUND" || (typeof message === "string" && /not found/i.test(message));
}

type RepoFields = Pick<ArtifactsRepoInfo, "name" | "remote" | "defaultBranch" | "description"> &
  Partial<Pick<ArtifactsRepoInfo, "readOnly" | "createdAt">>;

function packageInfo(repo: RepoFields): PackageRepoInfo {
  return {
    name: repo.name,
    remote: repo.remote,
    defaultBranch: repo.defaultBranch,
    readOnly: repo.readOnly === true,
    createdAt: repo.createdAt ?? new Date().toISOString(),
    ...(repo.description ? { description: repo.description } : {}),
  };
}

function packageToken(token: ArtifactsTokenInfo): PackageTokenInfo {
  return { id: token.id, scope: token.scope, expiresAt: token.expiresAt, createdAt: token.createdAt };
}

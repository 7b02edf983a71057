/**
 * `createArtifact(binding, sessionId?)`: the binding scoped to one agent
 * session. Repositories are stored as `<session>__<name>` and returned as
 * `<name>`; listing shows only the session's. Without a session (undefined
 * or null) the client is namespace-wide and names pass through unchanged.
 */
import type { ArtifactsCliRequest, GitCliResult, WorkspaceArtifacts } from "../workspace/capabilities.js";
import { createToken, findRepo, importRepo, listTokens, repoInfo, revokeToken } from "./binding.js";
import { runArtifactsCLI } from "./cli/index.js";
import { InvalidRepoNameError, InvalidSessionIdError, NotFoundError } from "./errors.js";
import type {
  ArtifactsCreatedRepo,
  ArtifactsListedRepo,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  CreateRepoOptions,
  ImportOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const LIST_PAGE_SIZE = 100;

export interface Artifact extends WorkspaceArtifacts {
  readonly sessionId: string | undefined;
  /** The repository and its initial write token (the binding mints one with every repository). */
  create(name: string, options?: CreateRepoOptions): Promise<ArtifactsCreatedRepo>;
  /** Null when the binding says `NOT_FOUND`. */
  get(name: string): Promise<ArtifactsRepoInfo | null>;
  /** Every repository of the session; like the binding's list, without `remote`. */
  list(): Promise<ArtifactsListedRepo[]>;
  import(name: string, source: ImportSource, options?: ImportOptions): Promise<ArtifactsCreatedRepo>;
  delete(name: string): Promise<boolean>;
  /** A missing repository is NotFoundError (ENOTFOUND). */
  createToken(name: string, scope?: TokenScope, ttlSec?: number): Promise<ArtifactsToken>;
  listTokens(name: string): Promise<ArtifactsTokenInfo[]>;
  /** A missing token is NotFoundError (ENOTFOUND). */
  getToken(name: string, id: string): Promise<ArtifactsTokenInfo>;
  /** False when the repository or the token is missing. */
  revokeToken(name: string, tokenOrId: string): Promise<boolean>;
  cli(request: ArtifactsCliRequest): Promise<GitCliResult>;
}

/** `binding` is Cloudflare's Artifacts binding (`env.ARTIFACTS`) or `MemoryArtifactsBinding`. */
export function createArtifact(binding: Artifacts, sessionId?: string | null): Artifact {
  const session = sessionId ?? undefined;
  if (session !== undefined && (typeof session !== "string" || !NAME.test(session) || session.includes("__"))) {
    throw new InvalidSessionIdError(String(session));
  }
  const prefix = session === undefined ? "" : `${session}__`;
  const stored = (name: string): string => {
    if (typeof name !== "string" || !NAME.test(name) || name.includes("__"))
      throw new InvalidRepoNameError(String(name));
    return `${prefix}${name}`;
  };
  const local = (name: string): string => name.slice(prefix.length);
  const listTokensOf = async (name: string): Promise<ArtifactsTokenInfo[]> => {
    const tokens = await listTokens(binding, stored(name));
    if (!tokens) throw new NotFoundError(`repository '${name}'`);
    return tokens;
  };
  const artifact: Artifact = {
    sessionId: session,
    async create(name, options = {}) {
      const created = await binding.create(stored(name), options);
      return { ...created, name: local(created.name) };
    },
    async get(name) {
      const repo = await findRepo(binding, stored(name));
      if (!repo) return null;
      const info = await repo.info();
      return repoInfo(info, local(info.name));
    },
    async list() {
      const out: ArtifactsListedRepo[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const page = await binding.list({ limit: LIST_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
        for (const repo of page.repos) if (repo.name.startsWith(prefix)) out.push({ ...repo, name: local(repo.name) });
        if (!page.cursor) return out;
        if (seen.has(page.cursor))
          throw new Error(`Artifacts list returned cursor ${JSON.stringify(page.cursor)} twice`);
        seen.add(page.cursor);
        cursor = page.cursor;
      }
    },
    async import(name, source, options = {}) {
      const imported = await importRepo(binding, stored(name), source, options);
      return { ...imported, name: local(imported.name) };
    },
    async delete(name) {
      return binding.delete(stored(name));
    },
    async createToken(name, scope = "write", ttlSec) {
      const token = await createToken(binding, stored(name), scope, ttlSec);
      if (!token) throw new NotFoundError(`repository '${name}'`);
      return token;
    },
    listTokens: listTokensOf,
    async getToken(name, id) {
      const token = (await listTokensOf(name)).find((candidate) => candidate.id === id);
      if (!token) throw new NotFoundError(`token '${id}' of repository '${name}'`);
      return token;
    },
    async revokeToken(name, tokenOrId) {
      return revokeToken(binding, stored(name), tokenOrId);
    },
    cli(request) {
      return runArtifactsCLI(artifact, request);
    },
  };
  return artifact;
}

/** `https://host/p` + token → `https://x:<token>@host/p`; a `?expires=…` tail of the token is dropped. */
export function credentialedRemote(remote: string, plaintext: string): string {
  const secret = plaintext.split("?expires=")[0] ?? plaintext;
  const at = remote.indexOf("://");
  if (at === -1) return remote;
  return `${remote.slice(0, at + 3)}x:${encodeURIComponent(secret)}@${remote.slice(at + 3)}`;
}

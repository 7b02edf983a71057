/**
 * `createArtifact(binding, sessionId?)`: the binding scoped to one agent
 * session. Repositories are stored as `<session>__<name>` and returned as
 * `<name>`; listing shows only the session's. Without a session (undefined
 * or null) the client is namespace-wide and names pass through unchanged.
 */
import type { ArtifactsCliRequest, GitCliResult, WorkspaceArtifacts } from "../workspace/capabilities.js";
import { runArtifactsCLI } from "./cli/index.js";
import { InvalidRepoNameError, InvalidSessionIdError, NotFoundError } from "./errors.js";
import type {
  ArtifactsBinding,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  CreateRepoOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const LIST_PAGE_SIZE = 100;

export interface Artifact extends WorkspaceArtifacts {
  readonly sessionId: string | undefined;
  create(name: string, options?: CreateRepoOptions): Promise<ArtifactsRepoInfo>;
  get(name: string): Promise<ArtifactsRepoInfo | null>;
  list(): Promise<ArtifactsRepoInfo[]>;
  import(
    name: string,
    source: ImportSource,
    options?: Omit<CreateRepoOptions, "setDefaultBranch">,
  ): Promise<ArtifactsRepoInfo>;
  delete(name: string): Promise<boolean>;
  createToken(name: string, scope?: TokenScope, ttlSec?: number): Promise<ArtifactsToken>;
  listTokens(name: string): Promise<ArtifactsTokenInfo[]>;
  /** A missing token is NotFoundError (ENOTFOUND). */
  getToken(name: string, id: string): Promise<ArtifactsTokenInfo>;
  revokeToken(name: string, tokenOrId: string): Promise<boolean>;
  cli(request: ArtifactsCliRequest): Promise<GitCliResult>;
}

export function createArtifact(binding: ArtifactsBinding, sessionId?: string | null): Artifact {
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
  const strip = (repo: ArtifactsRepoInfo): ArtifactsRepoInfo => ({ ...repo, name: repo.name.slice(prefix.length) });
  const requireRepo = async (name: string): Promise<string> => {
    const key = stored(name);
    if (!(await binding.get(key))) throw new NotFoundError(`repository '${name}'`);
    return key;
  };
  const artifact: Artifact = {
    sessionId: session,
    async create(name, options = {}) {
      return strip(await binding.create(stored(name), options));
    },
    async get(name) {
      const repo = await binding.get(stored(name));
      return repo ? strip(repo) : null;
    },
    async list() {
      const out: ArtifactsRepoInfo[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const page = await binding.list({ limit: LIST_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
        for (const repo of page.repos) if (repo.name.startsWith(prefix)) out.push(strip(repo));
        if (!page.cursor) return out;
        if (seen.has(page.cursor))
          throw new Error(`Artifacts list returned cursor ${JSON.stringify(page.cursor)} twice`);
        seen.add(page.cursor);
        cursor = page.cursor;
      }
    },
    async import(name, source, options = {}) {
      return strip(await binding.import(stored(name), source, options));
    },
    async delete(name) {
      return binding.delete(stored(name));
    },
    async createToken(name, scope = "write", ttlSec) {
      return binding.createToken(await requireRepo(name), scope, ttlSec);
    },
    async listTokens(name) {
      return binding.listTokens(await requireRepo(name));
    },
    async getToken(name, id) {
      const token = await binding.getToken(await requireRepo(name), id);
      if (!token) throw new NotFoundError(`token '${id}' of repository '${name}'`);
      return token;
    },
    async revokeToken(name, tokenOrId) {
      return binding.revokeToken(stored(name), tokenOrId);
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

/**
 * `createArtifact(binding, sessionId)`: the binding scoped to one agent
 * session. Repositories are stored as `<session>__<name>` and returned as
 * `<name>`; listing shows only the session's. A miss on a repository is the
 * binding's own error (`NOT_FOUND` from its `get`), passed through as the
 * original does. An addition of ours: without a session (undefined or null)
 * the client is namespace-wide, names pass through unchanged and
 * `sessionId` is `""`.
 */
import type { ArtifactsCliRequest, GitCliResult, WorkspaceArtifacts } from "../contracts/capabilities.js";
import { importRepo, repoInfo } from "./binding.js";
import { runArtifactsCLI } from "./cli/index.js";
import { ArtifactError, InvalidRepoNameError, InvalidSessionIdError, NotFoundError } from "./errors.js";
import type {
  ArtifactImportOptions,
  ArtifactImportSource,
  ArtifactRepoSummary,
  ArtifactScope,
} from "./option-names.js";
import type {
  ArtifactsCreatedRepo,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  ArtifactsTokenList,
  CreateRepoOptions,
} from "./types.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** `list` walks the binding's pages this many at a time (the binding allows up to 200). */
export const LIST_PAGE_SIZE = 100;

/** The session-scoped client (the original's `ArtifactClient`; `Artifact` is our earlier name). */
export interface ArtifactClient extends WorkspaceArtifacts {
  /** The session every name is scoped under; `""` for a namespace-wide client. */
  readonly sessionId: string;
  /** The repository and its initial write token (the binding mints one with every repository). */
  create(name: string, options?: CreateRepoOptions): Promise<ArtifactsCreatedRepo>;
  /** The repository's metadata; a missing one rejects with the binding's `NOT_FOUND`. */
  get(name: string): Promise<ArtifactsRepoInfo>;
  /** Every repository of the session, all pages; like the binding's list, without `remote`. */
  list(): Promise<ArtifactRepoSummary[]>;
  import(name: string, source: ArtifactImportSource, options?: ArtifactImportOptions): Promise<ArtifactsCreatedRepo>;
  /** False when the repository does not exist. */
  delete(name: string): Promise<boolean>;
  createToken(name: string, scope?: ArtifactScope, ttlSec?: number): Promise<ArtifactsToken>;
  /** The binding's token page: `{ total, tokens }`, metadata only. */
  listTokens(name: string): Promise<ArtifactsTokenList>;
  /** A token id not in the repository's list is NotFoundError (ENOTFOUND). */
  getToken(name: string, id: string): Promise<ArtifactsTokenInfo>;
  /** False when the repository has no such token. */
  revokeToken(name: string, tokenOrId: string): Promise<boolean>;
  cli(request: ArtifactsCliRequest): Promise<GitCliResult>;
}

/** @deprecated Our earlier name of `ArtifactClient`. */
export type Artifact = ArtifactClient;

/** Why a session id or repository name cannot be a segment of `<session>__<name>`, or undefined when it can. */
function nameProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (value === "") return "must not be empty";
  if (!NAME.test(value)) return "use letters, digits, '.', '_' and '-', starting with a letter or digit";
  if (value.includes("__")) return "'__' separates the session from the name";
  return undefined;
}

/** `binding` is Cloudflare's Artifacts binding (`env.ARTIFACTS`) or `MemoryArtifactsBinding`. */
export function createArtifact(binding: Artifacts, sessionId?: string | null): ArtifactClient {
  if (sessionId !== undefined && sessionId !== null) {
    const problem = nameProblem(sessionId);
    if (problem) throw new InvalidSessionIdError(String(sessionId), problem);
  }
  const session = sessionId ?? "";
  const prefix = session === "" ? "" : `${session}__`;
  const stored = (name: string): string => {
    const problem = nameProblem(name);
    if (problem) throw new InvalidRepoNameError(String(name), problem);
    return `${prefix}${name}`;
  };
  /** The local name of a stored one, or undefined when it is not the session's. */
  const local = (name: string): string | undefined => {
    if (!name.startsWith(prefix)) return undefined;
    const rest = name.slice(prefix.length);
    return rest === "" || (prefix !== "" && rest.includes("__")) ? undefined : rest;
  };
  const handle = (name: string) => binding.get(stored(name));
  const client: ArtifactClient = {
    sessionId: session,
    async create(name, options) {
      const created = await binding.create(stored(name), options);
      return { ...created, name: local(created.name) ?? name };
    },
    async get(name) {
      return repoInfo(await (await handle(name)).info(), name);
    },
    async list() {
      const out: ArtifactRepoSummary[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const page = await binding.list({ limit: LIST_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
        for (const repo of page.repos) {
          const name = local(repo.name);
          if (name !== undefined) out.push({ ...repo, name });
        }
        if (page.cursor === undefined) return out;
        if (seen.has(page.cursor))
          throw new Error(`Artifacts list returned cursor ${JSON.stringify(page.cursor)} twice`);
        seen.add(page.cursor);
        cursor = page.cursor;
      }
    },
    async import(name, source, options) {
      const imported = await importRepo(binding, stored(name), source, options);
      return { ...imported, name: local(imported.name) ?? name };
    },
    async delete(name) {
      return binding.delete(stored(name));
    },
    async createToken(name, scope, ttlSec) {
      return (await handle(name)).createToken(scope, ttlSec);
    },
    async listTokens(name) {
      return (await handle(name)).listTokens();
    },
    async getToken(name, id) {
      const { tokens } = await (await handle(name)).listTokens();
      const token = tokens.find((candidate) => candidate.id === id);
      if (!token) throw new NotFoundError(`no such token '${id}' in repo '${name}'`);
      return token;
    },
    async revokeToken(name, tokenOrId) {
      return (await handle(name)).revokeToken(tokenOrId);
    },
    cli(request) {
      return runArtifactsCLI(client, request);
    },
  };
  return client;
}

/**
 * What `workspace.artifacts` is without an Artifacts binding: every call
 * rejects with ArtifactError `ENOCONFIG`, and `cli` answers exit 1 with that
 * message, so a shell `artifacts …` says what is missing.
 */
export function createUnconfiguredArtifact(): ArtifactClient {
  const fail = async (): Promise<never> => {
    throw new ArtifactError("ENOCONFIG", "Workspace Artifacts binding is not configured");
  };
  const client: ArtifactClient = {
    sessionId: "",
    create: fail,
    get: fail,
    list: fail,
    import: fail,
    delete: fail,
    createToken: fail,
    listTokens: fail,
    getToken: fail,
    revokeToken: fail,
    cli: (request) => runArtifactsCLI(client, request),
  };
  return client;
}

/** `https://host/p` + token → `https://x:<token>@host/p`; a `?expires=…` tail of the token is dropped. */
export function credentialedRemote(remote: string, plaintext: string): string {
  const secret = plaintext.split("?expires=")[0] ?? plaintext;
  const at = remote.indexOf("://");
  if (at === -1) return remote;
  return `${remote.slice(0, at + 3)}x:${encodeURIComponent(secret)}@${remote.slice(at + 3)}`;
}

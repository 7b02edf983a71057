/**
 * Cloudflare's Artifacts binding (`Artifacts` from @cloudflare/workers-types)
 * in memory, for tests and local development: the same interface, the same
 * error codes (`NOT_FOUND` from `get`, `ALREADY_EXISTS`, `INVALID_REPO_NAME`,
 * `INVALID_TTL`), tokens on the repository handle, an initial write token
 * with every new repository. Code that runs on it runs on the real binding.
 *
 * A repository's remote is `<remoteBase>/<name>.git`, so pointing
 * `remoteBase` at a local smart-HTTP server (and making the bare repository
 * in `onCreate`) makes `--remote` and push flows work end to end;
 * `authorize` answers whether a token may read or write, for that server.
 */
import type {
  ArtifactsCreatedRepo,
  ArtifactsListPage,
  ArtifactsRepoHandle,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  CreateRepoOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

/** Where a new repository's contents come from: nothing (`create`), a URL (`import`), or another repository (`fork`). */
export type MemoryRepoOrigin = { kind: "import"; source: ImportSource } | { kind: "fork"; from: string };

export interface MemoryArtifactsBindingOptions {
  /** Default `https://artifacts.invalid/git`. */
  remoteBase?: string;
  /** Called with the name before create, import or fork resolves (e.g. `git init --bare`); a throw fails the call. */
  onCreate?: (name: string, origin?: MemoryRepoOrigin) => void | Promise<void>;
  /** Seconds a token lives when none is asked for. Default 86 400, like the binding. */
  defaultTtlSec?: number;
  now?: () => number;
}

/** The binding's rule for names; it allows `__`, which only the session scoping reserves. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Token lifetimes the binding accepts, in seconds. */
const TTL = { min: 60, max: 31_536_000, fallback: 86_400 };
/** The binding's default page size and its cap. */
const LIST = { fallback: 50, max: 200 };

/** Shaped like the binding's `ArtifactsError`: `name` "ArtifactsError" and a string `code`. */
export class MemoryArtifactsError extends Error {
  override readonly name = "ArtifactsError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

interface StoredToken {
  id: string;
  repo: string;
  scope: TokenScope;
  plaintext: string;
  createdAt: string;
  expiresAt: string;
}

export class MemoryArtifactsBinding implements Artifacts {
  readonly repos = new Map<string, ArtifactsRepoInfo>();
  readonly tokens = new Map<string, StoredToken>();
  /** Every call, as `verb name` (`list` alone), so a test can prove a call did not happen. */
  readonly calls: string[] = [];
  readonly #options: MemoryArtifactsBindingOptions;
  /** Names whose create, import or fork is between its check and its store. */
  readonly #pending = new Set<string>();
  #nextToken = 1;

  constructor(options: MemoryArtifactsBindingOptions = {}) {
    this.#options = options;
  }

  async create(name: string, opts: CreateRepoOptions = {}): Promise<ArtifactsCreatedRepo> {
    this.calls.push(`create ${name}`);
    return this.#make(name, undefined, opts.description, opts.readOnly, opts.setDefaultBranch);
  }

  async get(name: string): Promise<ArtifactsRepoHandle> {
    this.calls.push(`get ${name}`);
    return this.#handle(this.#existing(name));
  }

  async import(params: Parameters<Artifacts["import"]>[0]): Promise<ArtifactsCreatedRepo> {
    const { source, target } = params;
    this.calls.push(`import ${target.name}`);
    if (typeof source?.url !== "string" || source.url === "") {
      throw new MemoryArtifactsError("INVALID_INPUT", "source.url is required");
    }
    const opts = target.opts ?? {};
    return this.#make(target.name, { kind: "import", source }, opts.description, opts.readOnly, source.branch);
  }

  async list(opts: { limit?: number; cursor?: string } = {}): Promise<ArtifactsListPage> {
    this.calls.push("list");
    const all = [...this.repos.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    const limit = Math.min(Math.max(opts.limit ?? LIST.fallback, 1), LIST.max);
    const start = opts.cursor ? Number(opts.cursor) : 0;
    const end = start + limit;
    return {
      repos: all.slice(start, end).map(({ remote: _remote, ...listed }) => listed),
      total: all.length,
      ...(end < all.length ? { cursor: String(end) } : {}),
    };
  }

  async delete(name: string): Promise<boolean> {
    this.calls.push(`delete ${name}`);
    this.#checkName(name);
    for (const [id, token] of this.tokens) if (token.repo === name) this.tokens.delete(id);
    return this.repos.delete(name);
  }

  /** Whether `secret` (a token without its `?expires=` tail) may read — or with `write`, push to — `name`. */
  authorize(name: string, secret: string | undefined, write: boolean): boolean {
    if (secret === undefined) return false;
    const now = this.#now();
    return [...this.tokens.values()].some(
      (token) =>
        token.repo === name &&
        secretOf(token.plaintext) === secret &&
        Date.parse(token.expiresAt) > now &&
        (!write || token.scope === "write"),
    );
  }

  /**
   * A capability over the stored name, like the binding's: metadata through `info()`; once the
   * repository is deleted, its methods fail with `NOT_FOUND`. Git objects live in the smart-HTTP
   * server behind `remoteBase`, not here, so the object reads fail with `INTERNAL_ERROR`.
   */
  #handle(repo: ArtifactsRepoInfo): ArtifactsRepoHandle {
    const name = repo.name;
    const noObjects = (method: string) => async (): Promise<never> => {
      this.calls.push(`${method} ${name}`);
      this.#existing(name);
      throw new MemoryArtifactsError(
        "INTERNAL_ERROR",
        `the in-memory Artifacts binding keeps no git objects (${method})`,
      );
    };
    const handle: Omit<ArtifactsRepoHandle, typeof Symbol.dispose> = {
      info: async () => {
        this.calls.push(`info ${name}`);
        return { ...this.#existing(name) };
      },
      readBlob: noObjects("readBlob"),
      readTree: noObjects("readTree"),
      readCommit: noObjects("readCommit"),
      readFile: noObjects("readFile"),
      log: noObjects("log"),
      createToken: async (scope = "write", ttl) => {
        this.calls.push(`createToken ${name}`);
        this.#existing(name);
        return this.#mint(name, scope, ttl);
      },
      listTokens: async () => {
        this.calls.push(`listTokens ${name}`);
        this.#existing(name);
        const tokens = [...this.tokens.values()].filter((token) => token.repo === name).map((t) => this.#info(t));
        return { tokens, total: tokens.length };
      },
      revokeToken: async (tokenOrId) => {
        this.calls.push(`revokeToken ${name}`);
        this.#existing(name);
        if (tokenOrId === "") throw new MemoryArtifactsError("INVALID_INPUT", "tokenOrId is empty");
        for (const [id, token] of this.tokens) {
          if (token.repo === name && (id === tokenOrId || secretOf(token.plaintext) === secretOf(tokenOrId))) {
            return this.tokens.delete(id);
          }
        }
        return false;
      },
      fork: async (target, opts = {}) => {
        this.calls.push(`fork ${name}`);
        const from = this.#existing(name);
        return this.#make(target, { kind: "fork", from: name }, opts.description, opts.readOnly, from.defaultBranch);
      },
    };
    // The binding's handle is Disposable; set apart because the Node type-check has no Symbol.dispose of its own.
    Object.defineProperty(handle, Symbol.dispose, { value: () => {} });
    return handle as ArtifactsRepoHandle;
  }

  async #make(
    name: string,
    origin: MemoryRepoOrigin | undefined,
    description: string | undefined,
    readOnly: boolean | undefined,
    branch: string | undefined,
  ): Promise<ArtifactsCreatedRepo> {
    this.#checkName(name);
    if (this.repos.has(name) || this.#pending.has(name)) {
      throw new MemoryArtifactsError("ALREADY_EXISTS", `repository '${name}' already exists`);
    }
    this.#pending.add(name);
    try {
      await this.#options.onCreate?.(name, origin);
    } finally {
      this.#pending.delete(name);
    }
    const now = new Date(this.#now()).toISOString();
    const base = this.#options.remoteBase ?? "https://artifacts.invalid/git";
    const repo: ArtifactsRepoInfo = {
      id: `repo_${name}`,
      name,
      description: description ?? null,
      defaultBranch: branch ?? "main",
      createdAt: now,
      updatedAt: now,
      lastPushAt: null,
      source: origin === undefined ? null : origin.kind === "import" ? origin.source.url : `artifacts:${origin.from}`,
      readOnly: readOnly === true,
      remote: `${base}/${name}.git`,
    };
    this.repos.set(name, repo);
    const token = this.#mint(name, "write", undefined);
    return {
      id: repo.id,
      name,
      description: repo.description,
      defaultBranch: repo.defaultBranch,
      remote: repo.remote,
      token: token.plaintext,
    };
  }

  #mint(name: string, scope: TokenScope, ttl: number | undefined): ArtifactsToken {
    if (scope !== "read" && scope !== "write") {
      throw new MemoryArtifactsError("INVALID_INPUT", `scope must be read or write, not ${JSON.stringify(scope)}`);
    }
    const seconds = ttl ?? this.#options.defaultTtlSec ?? TTL.fallback;
    if (!Number.isInteger(seconds) || seconds < TTL.min || seconds > TTL.max) {
      throw new MemoryArtifactsError("INVALID_TTL", `ttl must be ${TTL.min} to ${TTL.max} seconds, not ${seconds}`);
    }
    const now = this.#now();
    const expires = Math.floor(now / 1000) + seconds;
    const id = `tok_${this.#nextToken++}`;
    const secret = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    const token: StoredToken = {
      id,
      repo: name,
      scope,
      plaintext: `art_${secret}?expires=${expires}`,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(expires * 1000).toISOString(),
    };
    this.tokens.set(id, token);
    return { id, plaintext: token.plaintext, scope, expiresAt: token.expiresAt };
  }

  #info(token: StoredToken): ArtifactsTokenInfo {
    const state = Date.parse(token.expiresAt) > this.#now() ? "active" : "expired";
    return { id: token.id, scope: token.scope, state, createdAt: token.createdAt, expiresAt: token.expiresAt };
  }

  #existing(name: string): ArtifactsRepoInfo {
    const repo = this.repos.get(name);
    if (!repo) throw new MemoryArtifactsError("NOT_FOUND", `repository '${name}' not found`);
    return repo;
  }

  #checkName(name: string): void {
    if (typeof name !== "string" || !NAME.test(name)) {
      throw new MemoryArtifactsError("INVALID_REPO_NAME", `invalid repository name ${JSON.stringify(name)}`);
    }
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}

function secretOf(plaintext: string): string {
  return plaintext.split("?expires=")[0] ?? plaintext;
}

/**
 * An in-memory `ArtifactsBinding` for tests and local development (the real
 * binding exists only on Cloudflare). Repositories live in a Map; their
 * remote is `<remoteBase>/<name>.git`, so pointing `remoteBase` at a local
 * smart-HTTP server (and creating the bare repository in `onCreate`) makes
 * `--remote` and push flows work end to end. `authorize` answers whether a
 * token may read or write a repository, for that server to call.
 */
import type {
  ArtifactsBinding,
  ArtifactsListPage,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  CreateRepoOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

export interface MemoryArtifactsBindingOptions {
  /** Default `https://artifacts.invalid/git`. */
  remoteBase?: string;
  /** Called with the stored name before create/import resolve (e.g. `git init --bare`). */
  onCreate?: (name: string, source?: ImportSource) => void | Promise<void>;
  /** Seconds a token lives without a TTL. Default 3600. */
  defaultTtlSec?: number;
  now?: () => number;
}

interface StoredToken extends ArtifactsToken {
  repo: string;
}

export class MemoryArtifactsBinding implements ArtifactsBinding {
  readonly repos = new Map<string, ArtifactsRepoInfo>();
  readonly tokens = new Map<string, StoredToken>();
  /** Every call, as `verb name` — so a test can prove a call did not happen. */
  readonly calls: string[] = [];
  readonly #options: MemoryArtifactsBindingOptions;
  #nextToken = 1;

  constructor(options: MemoryArtifactsBindingOptions = {}) {
    this.#options = options;
  }

  async create(name: string, options: CreateRepoOptions = {}): Promise<ArtifactsRepoInfo> {
    this.calls.push(`create ${name}`);
    if (this.repos.has(name)) throw new Error(`repository '${name}' already exists`);
    await this.#options.onCreate?.(name);
    return this.#store(name, options.description, options.readOnly, options.setDefaultBranch);
  }

  async get(name: string): Promise<ArtifactsRepoInfo | null> {
    this.calls.push(`get ${name}`);
    return this.repos.get(name) ?? null;
  }

  async list(options: { limit?: number; cursor?: string } = {}): Promise<ArtifactsListPage> {
    this.calls.push("list");
    const all = [...this.repos.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    const start = options.cursor ? Number(options.cursor) : 0;
    const end = start + (options.limit ?? 100);
    return { repos: all.slice(start, end), ...(end < all.length ? { cursor: String(end) } : {}) };
  }

  async import(
    name: string,
    source: ImportSource,
    options: Omit<CreateRepoOptions, "setDefaultBranch"> = {},
  ): Promise<ArtifactsRepoInfo> {
    this.calls.push(`import ${name}`);
    if (this.repos.has(name)) throw new Error(`repository '${name}' already exists`);
    await this.#options.onCreate?.(name, source);
    return this.#store(name, options.description, options.readOnly, source.branch);
  }

  async delete(name: string): Promise<boolean> {
    this.calls.push(`delete ${name}`);
    for (const [id, token] of this.tokens) if (token.repo === name) this.tokens.delete(id);
    return this.repos.delete(name);
  }

  async createToken(name: string, scope: TokenScope, ttlSec?: number): Promise<ArtifactsToken> {
    this.calls.push(`createToken ${name}`);
    if (!this.repos.has(name)) throw new Error(`repository '${name}' not found`);
    const now = this.#now();
    const expires = Math.floor(now / 1000) + (ttlSec ?? this.#options.defaultTtlSec ?? 3600);
    const id = `tok_${this.#nextToken++}`;
    const secret = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    const token: StoredToken = {
      id,
      scope,
      repo: name,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(expires * 1000).toISOString(),
      plaintext: `art_${secret}?expires=${expires}`,
    };
    this.tokens.set(id, token);
    return publicToken(token, true);
  }

  async listTokens(name: string): Promise<ArtifactsTokenInfo[]> {
    this.calls.push(`listTokens ${name}`);
    return [...this.tokens.values()].filter((token) => token.repo === name).map((token) => publicToken(token, false));
  }

  async getToken(name: string, id: string): Promise<ArtifactsTokenInfo | null> {
    this.calls.push(`getToken ${name}`);
    const token = this.tokens.get(id);
    return token && token.repo === name ? publicToken(token, false) : null;
  }

  async revokeToken(name: string, tokenOrId: string): Promise<boolean> {
    this.calls.push(`revokeToken ${name}`);
    for (const [id, token] of this.tokens) {
      if (token.repo === name && (id === tokenOrId || secretOf(token.plaintext) === secretOf(tokenOrId))) {
        return this.tokens.delete(id);
      }
    }
    return false;
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

  #store(
    name: string,
    description: string | undefined,
    readOnly: boolean | undefined,
    branch: string | undefined,
  ): ArtifactsRepoInfo {
    const base = this.#options.remoteBase ?? "https://artifacts.invalid/git";
    const repo: ArtifactsRepoInfo = {
      name,
      remote: `${base}/${name}.git`,
      defaultBranch: branch ?? "main",
      readOnly: readOnly === true,
      createdAt: new Date(this.#now()).toISOString(),
      ...(description ? { description } : {}),
    };
    this.repos.set(name, repo);
    return repo;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}

function secretOf(plaintext: string): string {
  return plaintext.split("?expires=")[0] ?? plaintext;
}

function publicToken(token: StoredToken, withSecret: true): ArtifactsToken;
function publicToken(token: StoredToken, withSecret: false): ArtifactsTokenInfo;
function publicToken(token: StoredToken, withSecret: boolean): ArtifactsToken | ArtifactsTokenInfo {
  const info: ArtifactsTokenInfo = {
    id: token.id,
    scope: token.scope,
    expiresAt: token.expiresAt,
    createdAt: token.createdAt,
  };
  return withSecret ? { ...info, plaintext: token.plaintext } : info;
}

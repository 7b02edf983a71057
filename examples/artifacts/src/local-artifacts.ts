/**
 * LOCAL STAND-IN for the Artifacts binding (`env.ARTIFACTS`), used only when
 * `ARTIFACTS_LOCAL_URL` is set (`npm run dev` and the tests set it; a deploy
 * never does). It implements the binding's own interface (`Artifacts` from
 * @cloudflare/workers-types) over the JSON API of the local Artifacts host,
 * `scripts/artifacts-host.mjs`, whose repositories are real git smart-HTTP
 * remotes on 127.0.0.1. Errors carry the binding's `code`s (`NOT_FOUND`, …).
 */

export class LocalArtifacts implements Artifacts {
  readonly #base: string;

  /** `url`: the local Artifacts host, e.g. `http://127.0.0.1:45700`. */
  constructor(url: string) {
    this.#base = url.replace(/\/+$/, "");
  }

  create(
    name: string,
    opts?: { readOnly?: boolean; description?: string; setDefaultBranch?: string },
  ): Promise<ArtifactsCreateRepoResult> {
    return this.#call("create", { name, opts });
  }

  /** A capability like the binding's: metadata through `info()`. The git objects are the host's remotes, read with git. */
  async get(name: string): Promise<ArtifactsRepo> {
    await this.#call<ArtifactsRepoInfo>("get", { name });
    const notServed = (method: string) => async (): Promise<never> => {
      throw new LocalArtifactsError("INTERNAL_ERROR", `the local Artifacts host does not serve ${method}; use git`);
    };
    return {
      [Symbol.dispose]: () => {},
      info: () => this.#call<ArtifactsRepoInfo>("get", { name }),
      readBlob: notServed("readBlob"),
      readTree: notServed("readTree"),
      readCommit: notServed("readCommit"),
      readFile: notServed("readFile"),
      log: notServed("log"),
      createToken: (scope, ttl) => this.#call("createToken", { name, scope, ttl }),
      listTokens: () => this.#call("listTokens", { name }),
      revokeToken: (tokenOrId) => this.#call("revokeToken", { name, tokenOrId }),
      fork: (target, opts) => this.#call("fork", { name, target, opts }),
    };
  }

  import(params: Parameters<Artifacts["import"]>[0]): Promise<ArtifactsCreateRepoResult> {
    return this.#call("import", params);
  }

  list(opts?: { limit?: number; cursor?: string }): Promise<ArtifactsRepoListResult> {
    return this.#call("list", { opts });
  }

  delete(name: string): Promise<boolean> {
    return this.#call("delete", { name });
  }

  async #call<T>(op: string, args: unknown): Promise<T> {
    const response = await fetch(`${this.#base}/api/${op}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    const reply = (await response.json()) as { value: T } | { error: { code: string; message: string } };
    if ("error" in reply) throw new LocalArtifactsError(reply.error.code, reply.error.message);
    return reply.value;
  }
}

/** Shaped like the binding's `ArtifactsError`: `name` and a string `code`. */
export class LocalArtifactsError extends Error {
  override readonly name = "ArtifactsError";
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

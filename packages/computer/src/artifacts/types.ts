/**
 * The Artifacts binding is Cloudflare's own: `Artifacts` from
 * @cloudflare/workers-types, what `env.ARTIFACTS` is typed as. Every shape
 * below is read off that declaration rather than restated, so the package
 * accepts exactly the binding a Worker gets and follows it when
 * workers-types changes. (The Node type-check gets the same declaration
 * through `workers-types.node.ts`.)
 */

/** What `createArtifact` and `new Workspace({ artifacts: { binding } })` take: Cloudflare's `Artifacts`. */
export type ArtifactsBinding = Artifacts;

/** What the binding's `get` answers: a repository capability (token, fork and git-object reads; `info()`). */
export type ArtifactsRepoHandle = Awaited<ReturnType<Artifacts["get"]>>;

/** A repository's metadata (the handle's `info()`), as plain data. */
export type ArtifactsRepoInfo = Awaited<ReturnType<ArtifactsRepoHandle["info"]>>;

/** What `create` and `import` answer: the repository and its initial write token. */
export type ArtifactsCreatedRepo = Awaited<ReturnType<Artifacts["create"]>>;

/** One page of `list`. */
export type ArtifactsListPage = Awaited<ReturnType<Artifacts["list"]>>;

/** A listed repository: the binding's list leaves out `remote` (`get` has it). */
export type ArtifactsListedRepo = ArtifactsListPage["repos"][number];

/** A new token; `plaintext` is the secret, shown once. */
export type ArtifactsToken = Awaited<ReturnType<ArtifactsRepoHandle["createToken"]>>;

/** A repository's token page: `{ total, tokens }`. */
export type ArtifactsTokenList = Awaited<ReturnType<ArtifactsRepoHandle["listTokens"]>>;

/** A token's metadata, without the secret. */
export type ArtifactsTokenInfo = ArtifactsTokenList["tokens"][number];

export type TokenScope = ArtifactsToken["scope"];

export type CreateRepoOptions = NonNullable<Parameters<Artifacts["create"]>[1]>;

type ImportParams = Parameters<Artifacts["import"]>[0];

/** Where `import` clones from: an https git URL, optionally one branch and a depth. */
export type ImportSource = ImportParams["source"];

export type ImportOptions = NonNullable<ImportParams["target"]["opts"]>;

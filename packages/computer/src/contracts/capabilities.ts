/**
 * The seams of a Workspace's optional capabilities. Each is configured by
 * the host and reached through `workspace.git` / `.assets` / `.artifacts`
 * (and the same names on a `WorkspaceStub`). The implementations live in
 * their own subpath exports (`@cloudflare/computer/git`, `/assets`,
 * `/artifacts`), so a Worker that does not use one does not bundle it.
 */
import type { SQLiteWorkspaceProvider, WorkspaceFilesystem } from "@cloudflare/dofs";

export interface GitIdentity {
  name: string;
  email: string;
}

export interface GitCliRequest {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}

export interface GitCliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** What the shell's `git` and `ws:git` need; the full client adds the typed methods (clone, commit, …). */
export interface WorkspaceGit {
  cli(request: GitCliRequest): Promise<GitCliResult>;
}

/** What `createGitClient()` returns: bound to a workspace's filesystem when the Workspace is built. */
export interface WorkspaceGitProvider<Git extends WorkspaceGit = WorkspaceGit> {
  open(context: { fs: WorkspaceFilesystem; defaultIdentity?: GitIdentity }): Git;
}

/**
 * The original's form of the `git` option: a function from the workspace to
 * its client (`createGitClient()` is one too). The Workspace calls it once,
 * with itself as `ws`: its `fs`, and the `provider()` the original's factories
 * work through.
 */
export type WorkspaceGitFactoryFunction<Git extends WorkspaceGit = WorkspaceGit> = (options: {
  ws: { readonly fs: WorkspaceFilesystem; provider(): SQLiteWorkspaceProvider };
  defaultIdentity?: GitIdentity;
}) => Git;

export interface PublishOptions {
  /** Lifetime of the URL, ms (rounded up to seconds, at most 7 days). */
  expiresAfter: number;
}

/** What our earlier publishers resolved to; `publish` now resolves to the URL itself, as the original's. */
export interface PublishedAsset {
  url: string;
}

/** The options of the original's `AssetsClient.share` (`createAssets` from `/assets` has this client). */
export interface AssetsShareOptions extends PublishOptions {
  prefix?: string;
  contentType?: string;
  filename?: string;
  disposition?: "inline" | "attachment";
}

/** The original's `AssetsClient`: `share` uploads the file and resolves to a presigned URL. */
export interface AssetsShareClient {
  share(path: string, options: AssetsShareOptions): Promise<string>;
}

/** A publisher in our earlier shape, still accepted by `new Workspace({ assets })`; a `{ url }` result is taken as its url. */
export interface WorkspaceAssets {
  publish(path: string, options: PublishOptions & { prefix?: string }): Promise<string | PublishedAsset>;
}

/** `publish` as a WorkspaceStub, and so a `getWorkspace()` client, offers it: share by expiry (and prefix), resolving to the URL. */
export interface WorkspaceAssetsPublisher {
  publish(path: string, options: PublishOptions & { prefix?: string }): Promise<string>;
}

/** What `workspace.assets` is: the original's `share`, and `publish`, both resolving to the URL. */
export interface WorkspaceAssetsClient extends AssetsShareClient, WorkspaceAssetsPublisher {}

/** `new Workspace({ assets })`: the original's client (`share`), or a publisher of ours (`publish`). */
export type WorkspaceAssetsOption = AssetsShareClient | WorkspaceAssets;

/**
 * Registers a git remote for `artifacts create` (the original's `RemoteAddFn`).
 * `ok` on success; on failure `exists: true` marks a name already taken
 * (what `--force` fixes) and `message` says what else went wrong. With
 * `force` an existing remote's URL is replaced.
 */
export type ArtifactsRemoteAdd = (remote: {
  name: string;
  url: string;
  force?: boolean;
}) => Promise<{ ok: boolean; exists?: boolean; message?: string }>;

/** The original's `ArtifactsCLIInput`. */
export interface ArtifactsCliRequest {
  /** The words after `artifacts`. */
  argv: string[];
  env?: Record<string, string>;
  /** Lets `artifacts create` register the remote in the caller's repository (the shell passes its cwd's); without it the output carries the `git remote add` line to run. */
  remoteAdd?: ArtifactsRemoteAdd;
}

export interface WorkspaceArtifacts {
  cli(request: ArtifactsCliRequest): Promise<GitCliResult>;
}

/** A capability given directly, or built from the Workspace once it exists. */
export type CapabilityOption<T, W> = T | ((workspace: W) => T);

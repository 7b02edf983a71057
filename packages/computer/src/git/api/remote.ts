/**
 * Remotes: the config verbs, then clone / fetch / push / pull over HTTP
 * (isomorphic-git's smart-HTTP client on `fetch`) or `file://` (copying
 * within the workspace, local-transport.ts). Clones are shallow by default
 * (depth 1; 0 or Infinity for full history). Progress is buffered and
 * returned, for the CLI to print on stderr at the end.
 */
import git, { type AuthCallback as IsomorphicAuthCallback } from "isomorphic-git";
import type { GitContext, GitRemoteAuth } from "../context.js";
import { AlreadyInitializedError, GitError } from "../errors.js";
import { fetchLocal, pushLocal } from "../local-transport.js";
import { exists, requireRepo, resolvePath } from "../paths.js";
import { parseRemoteUrl } from "../transport.js";
import { init } from "./repo.js";

export async function remoteAdd(
  ctx: GitContext,
  options: { dir?: string; name: string; url: string; force?: boolean },
): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  parseRemoteUrl(options.url);
  try {
    await git.addRemote({
      fs: ctx.fs,
      dir: root,
      remote: options.name,
      url: options.url,
      force: options.force === true,
    });
  } catch (error) {
    if ((error as { code?: string }).code === "AlreadyExistsError") {
      throw new GitError("EEXISTS", `remote ${options.name} already exists`, { cause: error });
    }
    throw error;
  }
}

export async function remoteRemove(ctx: GitContext, options: { dir?: string; name: string }): Promise<void> {
  const root = await requireRepo(ctx, options.dir);
  if (!(await remoteUrl(ctx, root, options.name))) throw new GitError("EFAILED", `no such remote: '${options.name}'`);
  await git.deleteRemote({ fs: ctx.fs, dir: root, remote: options.name });
}

export async function remoteList(
  ctx: GitContext,
  options: { dir?: string } = {},
): Promise<Array<{ remote: string; url: string }>> {
  const root = await requireRepo(ctx, options.dir);
  return git.listRemotes({ fs: ctx.fs, dir: root });
}

/** Which remote an operation talks to: a configured name, or a URL given directly. */
interface RemoteTarget {
  remote?: string;
  url?: string;
}

/** The URL to use and the remote name to record refs under (`origin` for a bare URL too, as isomorphic-git does). */
async function targetOf(
  ctx: GitContext,
  root: string,
  options: RemoteTarget,
): Promise<{ remote: string; url: string }> {
  const remote = options.remote ?? "origin";
  if (options.url !== undefined) return { remote, url: options.url };
  return { remote, url: await requireRemoteUrl(ctx, root, remote) };
}

export interface CloneOptions extends GitRemoteAuth {
  url: string;
  /** Default: the URL's basename without `.git`, under `/`. */
  dir?: string;
  /** Branch or tag; default the remote's HEAD. */
  ref?: string;
  /** Default 1; 0 or Infinity clones the whole history. */
  depth?: number;
  /** Partial checkout: only these repository paths are written to the work tree. */
  paths?: string[];
  remote?: string;
  noCheckout?: boolean;
  /** Only the requested branch (default true). */
  singleBranch?: boolean;
  /** Leave tags out (default true). */
  noTags?: boolean;
  corsProxy?: string;
}

export interface RemoteResult {
  /** Buffered progress lines (for stderr). */
  progress: string;
}

export async function clone(
  ctx: GitContext,
  options: CloneOptions,
): Promise<RemoteResult & { dir: string; branch: string | null }> {
  const target = parseRemoteUrl(options.url);
  const dir = resolvePath("/", options.dir ?? defaultCloneDir(options.url));
  if (await exists(ctx, dir)) {
    if ((await ctx.files.list(dir)).length > 0) {
      throw new AlreadyInitializedError(dir, {
        message: `destination path '${dir}' already exists and is not an empty directory`,
      });
    }
  }
  const remote = options.remote ?? "origin";
  const progress = new Progress();
  const depth = options.depth ?? 1;
  const checkoutLater = options.paths !== undefined || options.noCheckout === true;
  if (target.kind === "http") {
    if (!(await exists(ctx, dir))) await ctx.files.mkdirp(dir);
    await git.clone({
      fs: ctx.fs,
      http: ctx.http,
      dir,
      url: target.url,
      remote,
      singleBranch: options.singleBranch !== false,
      noTags: options.noTags !== false,
      noCheckout: checkoutLater,
      cache: ctx.cache,
      ...(options.ref ? { ref: options.ref } : {}),
      ...(options.corsProxy ? { corsProxy: options.corsProxy } : {}),
      ...(depth > 0 && Number.isFinite(depth) ? { depth } : {}),
      ...authOptions(options),
      ...progress.callbacks(options),
    });
  } else {
    await init(ctx, { dir });
    await git.addRemote({ fs: ctx.fs, dir, remote, url: options.url });
    const fetched = await fetchLocal(ctx, dir, target.path, remote);
    const branch = options.ref ?? fetched.headBranch ?? Object.keys(fetched.branches)[0];
    if (branch && fetched.branches[branch]) {
      await git.writeRef({
        fs: ctx.fs,
        dir,
        ref: `refs/heads/${branch}`,
        value: fetched.branches[branch],
        force: true,
      });
      await git.writeRef({ fs: ctx.fs, dir, ref: "HEAD", value: `refs/heads/${branch}`, force: true, symbolic: true });
      await git.setConfig({ fs: ctx.fs, dir, path: `branch.${branch}.remote`, value: remote });
      await git.setConfig({ fs: ctx.fs, dir, path: `branch.${branch}.merge`, value: `refs/heads/${branch}` });
      if (!checkoutLater) await git.checkout({ fs: ctx.fs, dir, ref: branch, cache: ctx.cache, force: true });
    }
  }
  const branch = (await git.currentBranch({ fs: ctx.fs, dir })) ?? null;
  if (options.paths && branch) {
    await git.checkout({ fs: ctx.fs, dir, ref: branch, filepaths: options.paths, cache: ctx.cache, force: true });
  }
  return { dir, branch, progress: progress.text() };
}

export interface FetchOptions extends GitRemoteAuth, RemoteTarget {
  dir?: string;
  /** The branch to fetch (and with `remoteRef`, the local name it is stored under). */
  ref?: string;
  /** The remote's name for it, when it differs from `ref`. */
  remoteRef?: string;
  depth?: number;
  /** Default: only `ref` when one is given, else every branch. */
  singleBranch?: boolean;
  prune?: boolean;
  tags?: boolean;
}

export interface FetchResult extends RemoteResult {
  /** The remote's HEAD branch (`refs/heads/main`), when it says. */
  defaultBranch: string | null;
  /** The commit fetched for the requested (or default) branch. */
  fetchHead: string | null;
}

export async function fetch(ctx: GitContext, options: FetchOptions = {}): Promise<FetchResult> {
  const root = await requireRepo(ctx, options.dir);
  const { remote, url } = await targetOf(ctx, root, options);
  const target = parseRemoteUrl(url);
  if (target.kind === "file") {
    const fetched = await fetchLocal(ctx, root, target.path, remote);
    const branch = options.remoteRef ?? options.ref ?? fetched.headBranch;
    return {
      progress: "",
      defaultBranch: fetched.headBranch ? `refs/heads/${fetched.headBranch}` : null,
      fetchHead: (branch && fetched.branches[branch.replace(/^refs\/heads\//, "")]) || null,
    };
  }
  const progress = new Progress();
  const result = await git.fetch({
    fs: ctx.fs,
    http: ctx.http,
    dir: root,
    cache: ctx.cache,
    singleBranch: options.singleBranch ?? options.ref !== undefined,
    ...(options.url !== undefined ? { url: target.url } : { remote }),
    ...(options.ref ? { ref: options.ref } : {}),
    ...(options.remoteRef ? { remoteRef: options.remoteRef } : {}),
    ...(options.depth ? { depth: options.depth } : {}),
    ...(options.prune ? { prune: true } : {}),
    ...(options.tags ? { tags: true } : {}),
    ...authOptions(options),
    ...progress.callbacks(options),
  });
  return { progress: progress.text(), defaultBranch: result.defaultBranch, fetchHead: result.fetchHead };
}

export interface PushOptions extends GitRemoteAuth, RemoteTarget {
  dir?: string;
  /** Local ref; default the current branch. */
  ref?: string;
  remoteRef?: string;
  force?: boolean;
  delete?: boolean;
}

/** How the remote took each ref; a refused ref has `ok: false` and the server's reason. */
export interface RefUpdateStatus {
  ok: boolean;
  error?: string;
}

export interface PushResult extends RemoteResult {
  ok: boolean;
  error: string | null;
  refs: Record<string, RefUpdateStatus>;
  /** The local ref pushed. */
  ref: string;
}

/** A refused ref throws ECONFLICT ("failed to push some refs"), as git exits 1 for it. */
export async function push(ctx: GitContext, options: PushOptions = {}): Promise<PushResult> {
  const root = await requireRepo(ctx, options.dir);
  const { remote, url } = await targetOf(ctx, root, options);
  const target = parseRemoteUrl(url);
  const ref = options.ref ?? (await git.currentBranch({ fs: ctx.fs, dir: root }));
  if (!ref) throw new GitError("EFAILED", "you are not currently on a branch; name the ref to push");
  if (target.kind === "file") {
    const remoteRef = options.remoteRef ?? ref;
    await pushLocal(ctx, root, target.path, ref, remoteRef, options.force === true);
    const fullRef = remoteRef.startsWith("refs/") ? remoteRef : `refs/heads/${remoteRef}`;
    return { ref, progress: "", ok: true, error: null, refs: { [fullRef]: { ok: true } } };
  }
  const progress = new Progress();
  const result = await git.push({
    fs: ctx.fs,
    http: ctx.http,
    dir: root,
    ref,
    cache: ctx.cache,
    force: options.force === true,
    delete: options.delete === true,
    ...(options.url !== undefined ? { url: target.url } : { remote }),
    ...(options.remoteRef ? { remoteRef: options.remoteRef } : {}),
    ...authOptions(options),
    ...progress.callbacks(options),
  });
  if (!result.ok) {
    const reasons = Object.entries(result.refs ?? {})
      .filter(([, status]) => !status.ok)
      .map(([name, status]) => `${name}: ${status.error}`);
    throw new GitError(
      "ECONFLICT",
      `failed to push some refs: ${[result.error, ...reasons].filter(Boolean).join("; ")}`,
    );
  }
  const refs: Record<string, RefUpdateStatus> = {};
  for (const [name, status] of Object.entries(result.refs ?? {})) {
    refs[name] = status.ok ? { ok: true } : { ok: false, ...(status.error ? { error: status.error } : {}) };
  }
  return { ref, progress: progress.text(), ok: true, error: result.error ?? null, refs };
}

export function defaultCloneDir(url: string): string {
  const base = url.replace(/\/+$/, "").split(/[/:]/).pop() ?? "repo";
  return `/${base.replace(/\.git$/, "") || "repo"}`;
}

export async function remoteUrl(ctx: GitContext, root: string, remote: string): Promise<string | undefined> {
  const value: unknown = await git.getConfig({ fs: ctx.fs, dir: root, path: `remote.${remote}.url` });
  return typeof value === "string" ? value : undefined;
}

async function requireRemoteUrl(ctx: GitContext, root: string, remote: string): Promise<string> {
  const url = await remoteUrl(ctx, root, remote);
  if (!url) throw new GitError("ENOTAREPO", `'${remote}' does not appear to be a git repository`);
  return url;
}

function authOptions(options: GitRemoteAuth): { headers?: Record<string, string>; onAuth?: IsomorphicAuthCallback } {
  const onAuth = options.onAuth;
  return {
    ...(options.headers ? { headers: options.headers } : {}),
    // No answer means give up: isomorphic-git would otherwise retry the same request.
    ...(onAuth ? { onAuth: async (url, auth) => (await onAuth(url, auth)) ?? { cancel: true } } : {}),
  };
}

/**
 * Buffers what the server says (sideband messages, whose progress lines
 * rewrite themselves with `\r`) and the client's own phases, keeping only
 * the final state of each line, so stderr reads like git's after the fact.
 */
class Progress {
  readonly #phases = new Map<string, string>();
  #messages = "";
  readonly onProgress = (event: { phase: string; loaded: number; total: number }): void => {
    const total = event.total ? `/${event.total}` : "";
    this.#phases.set(event.phase, `${event.phase}: ${event.loaded}${total}`);
  };
  readonly onMessage = (message: string): void => {
    this.#messages += message;
  };
  /** The buffering callbacks, each also calling the caller's own. */
  callbacks(options: GitRemoteAuth): {
    onProgress: (event: { phase: string; loaded: number; total: number }) => void;
    onMessage: (message: string) => void;
  } {
    return {
      onProgress: (event) => {
        this.onProgress(event);
        options.onProgress?.(event);
      },
      onMessage: (message) => {
        this.onMessage(message);
        options.onMessage?.(message);
      },
    };
  }
  text(): string {
    const server = this.#messages
      .split("\n")
      .map((line) =>
        line
          .split("\r")
          .filter((part) => part.trim() !== "")
          .pop()
          ?.trimEnd(),
      )
      .filter((line): line is string => line !== undefined && line !== "");
    const lines = [...server, ...[...this.#phases.values()].map((line) => `${line}, done.`)];
    return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }
}

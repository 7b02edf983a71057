/**
 * Remotes: the config verbs, then clone / fetch / push / pull over HTTP
 * (isomorphic-git's smart-HTTP client on `fetch`) or `file://` (copying
 * within the workspace, local-transport.ts). Clones are shallow by default
 * (depth 1; 0 or Infinity for full history). Progress is buffered and
 * returned, for the CLI to print on stderr at the end.
 */
import git, { type AuthCallback } from "isomorphic-git";
import type { GitContext, GitRemoteAuth } from "../context.js";
import { GitError } from "../errors.js";
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
    if ((await ctx.workspace.readdir(dir, { limit: 1 })).length > 0) {
      throw new GitError("EALREADYINIT", `destination path '${dir}' already exists and is not an empty directory`);
    }
  }
  const remote = options.remote ?? "origin";
  const progress = new Progress();
  const depth = options.depth ?? 1;
  const checkoutLater = options.paths !== undefined || options.noCheckout === true;
  if (target.kind === "http") {
    if (!(await exists(ctx, dir))) await ctx.workspace.mkdir(dir, { recursive: true });
    await git.clone({
      fs: ctx.fs,
      http: ctx.http,
      dir,
      url: target.url,
      remote,
      singleBranch: true,
      noCheckout: checkoutLater,
      cache: ctx.cache,
      ...(options.ref ? { ref: options.ref } : {}),
      ...(depth > 0 && Number.isFinite(depth) ? { depth } : {}),
      ...authOptions(options),
      onProgress: progress.onProgress,
      onMessage: progress.onMessage,
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

export interface FetchOptions extends GitRemoteAuth {
  dir?: string;
  remote?: string;
  ref?: string;
  depth?: number;
  prune?: boolean;
  tags?: boolean;
}

export async function fetch(ctx: GitContext, options: FetchOptions = {}): Promise<RemoteResult> {
  const root = await requireRepo(ctx, options.dir);
  const remote = options.remote ?? "origin";
  const url = await requireRemoteUrl(ctx, root, remote);
  const target = parseRemoteUrl(url);
  const progress = new Progress();
  if (target.kind === "file") {
    await fetchLocal(ctx, root, target.path, remote);
    return { progress: "" };
  }
  await git.fetch({
    fs: ctx.fs,
    http: ctx.http,
    dir: root,
    remote,
    cache: ctx.cache,
    singleBranch: options.ref !== undefined,
    ...(options.ref ? { ref: options.ref } : {}),
    ...(options.depth ? { depth: options.depth } : {}),
    ...(options.prune ? { prune: true } : {}),
    ...(options.tags ? { tags: true } : {}),
    ...authOptions(options),
    onProgress: progress.onProgress,
    onMessage: progress.onMessage,
  });
  return { progress: progress.text() };
}

export interface PushOptions extends GitRemoteAuth {
  dir?: string;
  remote?: string;
  /** Local ref; default the current branch. */
  ref?: string;
  remoteRef?: string;
  force?: boolean;
  delete?: boolean;
}

export async function push(ctx: GitContext, options: PushOptions = {}): Promise<RemoteResult & { ref: string }> {
  const root = await requireRepo(ctx, options.dir);
  const remote = options.remote ?? "origin";
  const target = parseRemoteUrl(await requireRemoteUrl(ctx, root, remote));
  const ref = options.ref ?? (await git.currentBranch({ fs: ctx.fs, dir: root }));
  if (!ref) throw new GitError("EFAILED", "you are not currently on a branch; name the ref to push");
  if (target.kind === "file") {
    await pushLocal(ctx, root, target.path, ref, options.remoteRef ?? ref, options.force === true);
    return { ref, progress: "" };
  }
  const progress = new Progress();
  const result = await git.push({
    fs: ctx.fs,
    http: ctx.http,
    dir: root,
    remote,
    ref,
    cache: ctx.cache,
    force: options.force === true,
    delete: options.delete === true,
    ...(options.remoteRef ? { remoteRef: options.remoteRef } : {}),
    ...authOptions(options),
    onProgress: progress.onProgress,
    onMessage: progress.onMessage,
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
  return { ref, progress: progress.text() };
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

function authOptions(options: GitRemoteAuth): { headers?: Record<string, string>; onAuth?: AuthCallback } {
  const onAuth = options.onAuth;
  return {
    ...(options.headers ? { headers: options.headers } : {}),
    ...(onAuth ? { onAuth: (url: string) => onAuth(url) ?? { cancel: true } } : {}),
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

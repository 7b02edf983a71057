/**
 * `GitClient`: the original's typed git API over a workspace, on `GitCore`.
 * Each method takes and returns the original's shapes (types.ts) and, for
 * any failure that is not one of the named errors (ENOTAREPO, EALREADYINIT,
 * EIDENTITY, EPATHOUTSIDE, EPATHSPEC, EMSG), throws its operation's code
 * (`EADDFAIL`, `ELOGFAIL`, …) with `git <verb> failed: <reason>` and the
 * reason as `cause`. `cli` is the core's: git's own output and exit codes.
 *
 * `createGitClient()` returns what `new Workspace({ git })` takes: callable
 * with `{ ws }` as in the original, and with `open` for our Workspace.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { GitIdentity, WorkspaceGit, WorkspaceGitProvider } from "../contracts/capabilities.js";
import type { DiffOptions, FileDiff } from "./api/diff.js";
import type { ShowResult } from "./api/history.js";
import type { GitStatus, GitStatusEntry } from "./api/status.js";
import { GitCore } from "./core.js";
import {
  AlreadyInitializedError,
  GitError,
  type GitErrorCode,
  MissingIdentityError,
  NotARepositoryError,
  PathOutsideRepoError,
  PathspecNotFoundError,
} from "./errors.js";
import type { GitFs } from "./fs-adapter.js";
import { type GitWorkspaceProvider, providerGitFs } from "./provider-fs.js";
import type {
  BaseWorktreeOptions,
  CatFileResult,
  CleanOptions,
  CommitResult,
  CommitView,
  CreateGitClientOptions,
  DiffSummaryEntry,
  FetchResult,
  GitAddOptions,
  GitBranchDeleteOptions,
  GitBranchListOptions,
  GitBranchOptions,
  GitCatFileOptions,
  GitCheckoutOptions,
  GitCliInput,
  GitCliResult,
  GitCloneOptions,
  GitCommitOptions,
  GitConfigGetOptions,
  GitConfigSetOptions,
  GitCurrentBranchOptions,
  GitDiffOptions,
  GitFetchOptions,
  GitHashObjectOptions,
  GitInitOptions,
  GitLogOptions,
  GitLsFilesOptions,
  GitLsTreeOptions,
  GitMergeOptions,
  GitPullOptions,
  GitPushOptions,
  GitRemoteAddOptions,
  GitRemoteListOptions,
  GitRemoteRemoveOptions,
  GitRepoRootOptions,
  GitRevParseOptions,
  GitRmOptions,
  GitShowOptions,
  GitStatusOptions,
  GitTagDeleteOptions,
  GitTagListOptions,
  GitTagOptions,
  GitUpdateRefOptions,
  MergeResult,
  PushResult,
  RemoteView,
  ResetOptions,
  StashPopOptions,
  StashPushOptions,
  StatusEntry,
  TreeEntryView,
  WorkspaceGitClientOptions,
} from "./types.js";

/** The original's named errors and our EMSG reach the caller as they are; everything else gets its operation's code. */
function passesThrough(error: unknown): boolean {
  return (
    error instanceof NotARepositoryError ||
    error instanceof AlreadyInitializedError ||
    error instanceof MissingIdentityError ||
    error instanceof PathOutsideRepoError ||
    error instanceof PathspecNotFoundError ||
    (error instanceof GitError && error.code === "EMSG")
  );
}

async function attempt<T>(code: GitErrorCode, verb: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (passesThrough(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new GitError(code, `git ${verb} failed: ${reason}`, { cause: error });
  }
}

const INDEX_LETTER = { ".": " ", A: "A", M: "M", D: "D", "?": " " } as const;
const WORKTREE_LETTER = { ".": " ", M: "M", D: "D", "?": "?" } as const;

function statusEntry(entry: GitStatusEntry): StatusEntry {
  return { path: entry.path, index: INDEX_LETTER[entry.x], worktree: WORKTREE_LETTER[entry.y] };
}

function commitView(entry: { oid: string; commit: Omit<CommitView, "oid"> }): CommitView {
  const { message, tree, parent, author, committer } = entry.commit;
  return { oid: entry.oid, message, tree, parent, author, committer };
}

/** The original's diff: `ref` (default HEAD) against the work tree, or against `to`. */
function diffSides(options: GitDiffOptions): DiffOptions {
  const rev = options.ref ?? "HEAD";
  const base = { ...(options.dir !== undefined ? { dir: options.dir } : {}), paths: options.paths };
  if (options.cached) return { ...base, from: options.from ?? { rev }, to: { index: true } };
  const to = typeof options.to === "string" ? { rev: options.to } : (options.to ?? { worktree: true as const });
  return { ...base, from: options.from ?? { rev }, to };
}

export class GitClient implements WorkspaceGit {
  readonly #files: WorkspaceFilesystem | GitFs | (() => Promise<GitFs>);
  readonly #options: CreateGitClientOptions & { defaultIdentity?: GitIdentity };
  #core: Promise<GitCore> | undefined;

  /**
   * On a workspace's filesystem, or on an isomorphic-git fs, or on one a
   * function makes (a provider's), called on the first use.
   */
  constructor(
    files: WorkspaceFilesystem | GitFs | (() => Promise<GitFs>),
    options: CreateGitClientOptions & { defaultIdentity?: GitIdentity } = {},
  ) {
    this.#files = files;
    this.#options = options;
  }

  #open(): Promise<GitCore> {
    const files = this.#files;
    this.#core ??= (typeof files === "function" ? files() : Promise.resolve(files)).then(
      (ready) =>
        new GitCore(ready, {
          ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
          ...(this.#options.defaultIdentity ? { defaultIdentity: this.#options.defaultIdentity } : {}),
        }),
    );
    return this.#core;
  }

  /** Clones into `dir` (default `/`, which must be empty, as git requires). */
  clone(options: GitCloneOptions): Promise<void> {
    return attempt("ECLONEFAIL", "clone", async () => {
      await (await this.#open()).clone({ ...options, dir: options.dir ?? "/" });
    });
  }

  /** A second init of the same directory is EALREADYINIT. */
  init(options: GitInitOptions = {}): Promise<void> {
    return attempt("EINITFAIL", "init", async () => {
      await (await this.#open()).init(options);
    });
  }

  /** Changed and untracked paths, sorted; the files of an untracked directory each get an entry. */
  status(options: GitStatusOptions = {}): Promise<StatusEntry[]> {
    return attempt("ESTATUSFAIL", "status", async () =>
      (await (await this.#open()).status({ ...options, untracked: "all" })).entries.map(statusEntry),
    );
  }

  /** Ours: the status with the branch, HEAD, and each side's mode and oid (what porcelain v2 prints). */
  statusDetails(options: GitStatusOptions & { untracked?: "normal" | "all" | "no" } = {}): Promise<GitStatus> {
    return attempt("ESTATUSFAIL", "status", async () => (await this.#open()).status(options));
  }

  add(options: GitAddOptions): Promise<void> {
    return attempt("EADDFAIL", "add", async () => {
      await (await this.#open()).add(options);
    });
  }

  /** Takes the paths out of the index; with `cached: false` (ours) out of the work tree too. */
  rm(options: GitRmOptions): Promise<void> {
    return attempt("ERMFAIL", "rm", async () => {
      await (await this.#open()).rm({ ...options, cached: options.cached !== false, recursive: true });
    });
  }

  /** Refuses when nothing is staged (unless `allowEmpty`) and without an identity (EIDENTITY). */
  commit(options: GitCommitOptions): Promise<CommitResult & { short: string; subject: string; branch: string | null }> {
    return attempt("ECOMMITFAIL", "commit", async () => (await this.#open()).commit(options));
  }

  /** Unified diff in git's format (`diff --git`, 3 lines of context); untracked files are not part of it. */
  diff(options: GitDiffOptions = {}): Promise<string> {
    return attempt("EDIFFFAIL", "diff", async () => (await this.#open()).diff(diffSides(options)));
  }

  diffSummary(options: GitDiffOptions = {}): Promise<DiffSummaryEntry[]> {
    return attempt("EDIFFFAIL", "diff", async () =>
      (await (await this.#open()).diffFiles(diffSides(options))).map(
        ({ path, status, insertions, deletions, binary }) => ({
          path,
          status,
          insertions,
          deletions,
          binary,
        }),
      ),
    );
  }

  /** Ours: each changed file with its modes, oids, counts and its part of the patch. */
  diffFiles(options: GitDiffOptions = {}): Promise<FileDiff[]> {
    return attempt("EDIFFFAIL", "diff", async () => (await this.#open()).diffFiles(diffSides(options)));
  }

  log(options: GitLogOptions = {}): Promise<CommitView[]> {
    return attempt("ELOGFAIL", "log", async () => (await (await this.#open()).log(options)).map(commitView));
  }

  show(options: GitShowOptions): Promise<CommitView> {
    return attempt("ESHOWFAIL", "show", async () => {
      const [entry] = await (await this.#open()).log({ ...options, depth: 1 });
      if (!entry) throw new GitError("EFAILED", `${options.ref} has no commit`);
      return commitView(entry);
    });
  }

  /** Ours: any object, as `git show` prints it: a commit with its changes, a tree's entries, a blob's bytes. */
  showObject(options: GitShowOptions): Promise<ShowResult> {
    return attempt("ESHOWFAIL", "show", async () => (await this.#open()).show({ ...options, rev: options.ref }));
  }

  revParse(options: GitRevParseOptions): Promise<string> {
    return attempt("EREVPARSEFAIL", "rev-parse", async () =>
      (await this.#open()).revParse({ ...options, rev: options.ref }),
    );
  }

  /** The work tree root at or above `dir`. */
  async repoRoot(options: GitRepoRootOptions = {}): Promise<string> {
    return (await this.#open()).repoRoot(options);
  }

  /** Undefined when HEAD is detached. */
  currentBranch(options: GitCurrentBranchOptions = {}): Promise<string | undefined> {
    return attempt(
      "ECURRENTBRANCHFAIL",
      "symbolic-ref",
      async () => (await (await this.#open()).currentBranch(options)) ?? undefined,
    );
  }

  lsFiles(options: GitLsFilesOptions = {}): Promise<string[]> {
    return attempt("ELSFILESFAIL", "ls-files", async () => (await this.#open()).lsFiles(options));
  }

  lsTree(options: GitLsTreeOptions): Promise<TreeEntryView[]> {
    return attempt("ELSTREEFAIL", "ls-tree", async () => (await this.#open()).lsTree({ ...options, rev: options.ref }));
  }

  branch(options: GitBranchOptions): Promise<void> {
    return attempt("EBRANCHFAIL", "branch", async () => {
      await (await this.#open()).branch(options);
    });
  }

  /** Refuses the current branch. */
  branchDelete(options: GitBranchDeleteOptions): Promise<void> {
    return attempt("EBRANCHFAIL", "branch -d", async () => (await this.#open()).branchDelete(options));
  }

  branchList(options: GitBranchListOptions = {}): Promise<string[]> {
    return attempt("EBRANCHFAIL", "branch list", async () => (await this.#open()).branchList(options));
  }

  /** A lightweight tag. */
  tag(options: GitTagOptions): Promise<void> {
    return attempt("ETAGFAIL", "tag", async () => {
      await (await this.#open()).tag({ ...options, ...(options.object !== undefined ? { rev: options.object } : {}) });
    });
  }

  tagDelete(options: GitTagDeleteOptions): Promise<void> {
    return attempt("ETAGFAIL", "tag -d", async () => (await this.#open()).tagDelete(options));
  }

  tagList(options: GitTagListOptions = {}): Promise<string[]> {
    return attempt("ETAGFAIL", "tag list", async () => (await this.#open()).tagList(options));
  }

  checkout(options: GitCheckoutOptions): Promise<void> {
    const { paths, ...rest } = options;
    return attempt("ECHECKOUTFAIL", "checkout", async () => {
      await (await this.#open()).checkout({ ...rest, ...(paths && paths.length > 0 ? { paths } : {}) });
    });
  }

  fetch(options: GitFetchOptions = {}): Promise<FetchResult> {
    return attempt("EFETCHFAIL", "fetch", async () => {
      const { defaultBranch, fetchHead } = await (await this.#open()).fetch(options);
      return { defaultBranch, fetchHead };
    });
  }

  /** A ref the remote refuses throws EPUSHFAIL. */
  push(options: GitPushOptions = {}): Promise<PushResult> {
    return attempt("EPUSHFAIL", "push", async () => {
      const { ok, error, refs } = await (await this.#open()).push(options);
      return { ok, error, refs };
    });
  }

  pull(options: GitPullOptions = {}): Promise<void> {
    return attempt("EPULLFAIL", "pull", async () => {
      await (await this.#open()).pull(options);
    });
  }

  /** A merge commit needs an identity (EIDENTITY); a conflict aborts, changing nothing. */
  merge(options: GitMergeOptions): Promise<MergeResult> {
    return attempt("EMERGEFAIL", "merge", async () => {
      const { status: _status, ...result } = await (await this.#open()).merge(options);
      return result;
    });
  }

  remoteAdd(options: GitRemoteAddOptions): Promise<void> {
    return attempt("EREMOTEFAIL", "remote add", async () => (await this.#open()).remoteAdd(options));
  }

  /** A remote that is not there is already removed (the CLI's `git remote remove` says so, exit 1). */
  remoteRemove(options: GitRemoteRemoveOptions): Promise<void> {
    return attempt("EREMOTEFAIL", "remote remove", async () => {
      const remotes = await (await this.#open()).remoteList(options);
      if (remotes.some(({ remote }) => remote === options.name)) await (await this.#open()).remoteRemove(options);
    });
  }

  remoteList(options: GitRemoteListOptions = {}): Promise<RemoteView[]> {
    return attempt("EREMOTEFAIL", "remote", async () =>
      (await (await this.#open()).remoteList(options)).map(({ remote, url }) => ({ name: remote, url })),
    );
  }

  /** The blob's oid; with `write`, stored in the repository at `dir`. */
  hashObject(options: GitHashObjectOptions): Promise<string> {
    return attempt("EHASHFAIL", "hash-object", async () => (await this.#open()).hashObject(options));
  }

  catFile(options: GitCatFileOptions): Promise<CatFileResult> {
    return attempt("ECATFILEFAIL", "cat-file", async () => {
      const { oid, type, size, content } = await (await this.#open()).catFile({ ...options, rev: options.oid });
      return { oid, bytes: content, type, size };
    });
  }

  updateRef(options: GitUpdateRefOptions): Promise<void> {
    return attempt("EUPDATEREFFAIL", "update-ref", async () =>
      (await this.#open()).updateRef({ ...options, force: options.force === true }),
    );
  }

  /** Undefined for an unset key; with `all`, every value (`[]` when unset). */
  configGet(options: GitConfigGetOptions): Promise<string | string[] | undefined> {
    return attempt<string | string[] | undefined>("ECONFIGFAIL", "config", async () => {
      const core = await this.#open();
      return options.all ? core.configGetAll(options) : core.configGet(options);
    });
  }

  configSet(options: GitConfigSetOptions): Promise<void> {
    return attempt("ECONFIGFAIL", "config", async () => (await this.#open()).configSet(options));
  }

  /** Needs `user.name` and `user.email` in the repository's config (isomorphic-git's stash commits read only those). */
  stashPush(options: StashPushOptions = {}): Promise<void> {
    return attempt("ESTASHFAIL", "stash push", async () => (await this.#open()).stashPush(options));
  }

  /** Newest first, as `stash@{N}: <message>`. */
  stashList(options: BaseWorktreeOptions = {}): Promise<string[]> {
    return attempt("ESTASHFAIL", "stash list", async () => (await this.#open()).stashList(options));
  }

  stashPop(options: StashPopOptions = {}): Promise<void> {
    return attempt("ESTASHFAIL", "stash pop", async () => (await this.#open()).stashPop(options));
  }

  /** Without `hard`, unstages (`paths`, or everything staged); the work tree is left alone. */
  reset(options: ResetOptions = {}): Promise<void> {
    const { ref, ...rest } = options;
    return attempt("ERESETFAIL", "reset", async () => {
      await (await this.#open()).reset({ ...rest, ...(ref !== undefined ? { rev: ref } : {}) });
    });
  }

  /** Removes untracked, non-ignored files (and with `directories`, untracked directories); returns their repository paths. */
  clean(options: CleanOptions = {}): Promise<string[]> {
    return attempt("ECLEANFAIL", "clean", async () =>
      (await (await this.#open()).clean(options)).removed.map((path) => path.replace(/\/$/, "")),
    );
  }

  /** git's argv front end: `{ argv, cwd?, env?, stdin? }` → `{ stdout, stderr, exitCode }`; never throws for git errors. */
  async cli(input: GitCliInput): Promise<GitCliResult> {
    return (await this.#open()).cli(input);
  }
}

/** `createGitClient()`: a function of `{ ws }` (the original's form), and a provider `new Workspace({ git })` opens. */
export type GitClientFactory = ((options: WorkspaceGitClientOptions) => GitClient) & WorkspaceGitProvider<GitClient>;

export function createGitClient(options: CreateGitClientOptions = {}): GitClientFactory {
  const open: GitClientFactory["open"] = ({ fs, defaultIdentity }) =>
    new GitClient(fs, { ...options, ...(defaultIdentity ? { defaultIdentity } : {}) });
  const factory = ({ ws, defaultIdentity }: WorkspaceGitClientOptions): GitClient => {
    const identity = defaultIdentity ? { defaultIdentity } : {};
    const fs = (ws as { fs?: WorkspaceFilesystem } | undefined)?.fs;
    if (typeof fs?.readFile === "function") return open({ fs, ...identity });
    const provider = (ws as { provider?: unknown } | undefined)?.provider;
    if (typeof provider !== "function") {
      throw new TypeError("createGitClient()({ ws }): ws must be a Workspace (with fs) or have provider()");
    }
    // The original's form: files through the provider, made on first use (by `adapter` when given).
    const files = async (): Promise<GitFs> => {
      const made = (ws as { provider(): GitWorkspaceProvider }).provider();
      return options.adapter ? ((await options.adapter(made)) as GitFs) : providerGitFs(made);
    };
    return new GitClient(files, { ...options, ...identity });
  };
  return Object.assign(factory, { open });
}

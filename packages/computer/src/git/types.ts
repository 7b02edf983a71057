/**
 * The typed surface of `@cloudflare/computer/git` under the original's
 * names: the options each `GitClient` method takes and the results it
 * returns. Every original field is here with its meaning; fields marked
 * "ours" are additions. test/compat/git.compat.ts checks them against the
 * published package.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { GitCliRequest, GitCliResult, GitIdentity } from "../contracts/capabilities.js";
import type { DiffSide } from "./api/diff.js";
import type { AuthCallback, GitAuth, GitRemoteAuth, MessageCallback, ProgressCallback } from "./context.js";
import type { GitSignature } from "./identity.js";
import type { GitProviderStats, GitWorkspaceProvider } from "./provider-fs.js";

export type {
  AuthCallback,
  GitAuth,
  GitCliRequest as GitCliInput,
  GitCliResult,
  GitIdentity,
  GitProviderStats,
  GitSignature,
  GitWorkspaceProvider,
  MessageCallback,
  ProgressCallback,
};

// ---------------------------------------------------------------------------
// Binding a client to a workspace

/**
 * What `createGitClient()({ ws })` takes: our `Workspace` (or anything with
 * its `fs`), or, in the original's form, an object with `provider()`, whose
 * node-like provider the client then works through.
 */
export type WorkspaceLike = { readonly fs: WorkspaceFilesystem } | { provider(): GitWorkspaceProvider };

export interface WorkspaceGitClientOptions {
  ws: WorkspaceLike;
  /** The author and committer when a call, its env and `.git/config` name none. */
  defaultIdentity?: GitIdentity;
}

/** isomorphic-git's `fs` argument: an object with an own `promises`. */
export interface IsomorphicGitFSClient {
  promises: object;
}

export interface CreateGitClientOptions {
  /** Ours: the fetch HTTP remotes go through; default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Makes isomorphic-git's `fs` from a `ws.provider()` (the original's seam).
   * Used only for a `ws` without `fs`; default: the provider's own methods.
   */
  adapter?(provider: GitWorkspaceProvider): Promise<IsomorphicGitFSClient>;
}

// ---------------------------------------------------------------------------
// Options every operation shares

export interface BaseWorktreeOptions {
  /** The repository: any directory inside its work tree. Default `/`. */
  dir?: string;
}

type Dir = BaseWorktreeOptions;

/** Where a network operation goes and how it authenticates. */
interface RemoteOptions extends Dir, GitRemoteAuth {
  /** A configured remote; default `origin`. */
  remote?: string;
  /** A URL to use instead of a configured remote. */
  url?: string;
  /** The local ref. */
  ref?: string;
  /** The remote's name for it, when it differs. */
  remoteRef?: string;
}

// ---------------------------------------------------------------------------
// Repository

export interface GitInitOptions extends Dir {
  /** Default `main`. */
  defaultBranch?: string;
  /** No work tree: the repository is `dir` itself. */
  bare?: boolean;
}

export interface GitCloneOptions extends Dir, GitRemoteAuth {
  /** http(s):// (isomorphic-git's smart HTTP) or, ours, file:// within the workspace. */
  url: string;
  /** Branch or tag; default the remote's HEAD. */
  ref?: string;
  /** Write only these paths to the work tree (the repository still has everything fetched). */
  paths?: string[];
  /** Default 1; 0 or Infinity for the whole history. */
  depth?: number;
  /** Only `ref`'s branch (default true). */
  singleBranch?: boolean;
  /** Leave tags out (default true). */
  noTags?: boolean;
  corsProxy?: string;
  /** Ours: the name to record the remote under (default `origin`). */
  remote?: string;
  /** Ours: fetch without writing a work tree. */
  noCheckout?: boolean;
}

export interface GitRepoRootOptions extends Dir {}

export interface GitCurrentBranchOptions extends Dir {
  /** `refs/heads/main` instead of `main`. */
  fullname?: boolean;
}

// ---------------------------------------------------------------------------
// Status, staging, commits

export interface GitStatusOptions extends Dir {
  /** Ours: only these repository paths (a directory stands for everything under it). */
  paths?: string[];
}

/**
 * One changed or untracked path. `index` is the staged change against HEAD,
 * `worktree` the unstaged change against the index, in git's short-format
 * letters (space: unchanged, `?` untracked).
 */
export interface StatusEntry {
  path: string;
  index: " " | "A" | "M" | "D";
  worktree: " " | "A" | "M" | "D" | "?";
}

/**
 * isomorphic-git's status-matrix row: `[path, head, workdir, stage]`, each
 * 0 absent, 1 as in HEAD, 2 changed, 3 changed in both stage and work tree.
 */
export type StatusRow = [filepath: string, headStatus: number, workdirStatus: number, stageStatus: number];

export interface GitAddOptions extends Dir {
  /** Repository paths; `.` is everything. A deleted file is staged as a deletion. `[]` stages nothing. */
  paths: string[];
  /** Stage ignored files too. */
  force?: boolean;
  /** Every change in the repository, deletions included (`git add -A`); `paths` is ignored. */
  all?: boolean;
  /** With `all`: only files HEAD tracks (`git add -u`, what `commit -a` stages). */
  trackedOnly?: boolean;
}

export interface GitRmOptions extends Dir {
  /** Repository paths to take out of the index. */
  paths: string[];
  /** Ours: keep the files in the work tree. Default true, as the original only unstages. */
  cached?: boolean;
}

export interface GitCommitOptions extends Dir {
  message: string;
  /** Default: `GIT_AUTHOR_*` in `env`, then `.git/config` `user.*`, then the client's `defaultIdentity`. */
  author?: GitSignature;
  /** Default as the author's, with `GIT_COMMITTER_*`, and then the author. */
  committer?: GitSignature;
  /** Replace HEAD's commit. */
  amend?: boolean;
  /** `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`, `GIT_COMMITTER_NAME`, `GIT_COMMITTER_EMAIL`. */
  env?: Record<string, string>;
  /** Ours: commit even when nothing is staged (otherwise ECOMMITFAIL "nothing to commit"). */
  allowEmpty?: boolean;
}

export interface CommitResult {
  oid: string;
}

// ---------------------------------------------------------------------------
// Diffs

export interface GitDiffOptions extends Dir {
  /** The old side; default HEAD. */
  ref?: string;
  /** The new side: a revision (both sides committed), or ours, a `DiffSide`; default the work tree. */
  to?: string | DiffSide;
  /** Only these repository paths. */
  paths?: string[];
  /** Ours: the old side as a `DiffSide` (`{ index: true }` is `git diff`'s default); overrides `ref`. */
  from?: DiffSide;
  /** Ours: git's `--cached`, the index against `ref` (default HEAD). */
  cached?: boolean;
}

/** One changed file: added, modified or deleted, with its line counts. */
export interface DiffSummaryEntry {
  path: string;
  status: "A" | "M" | "D";
  insertions: number;
  deletions: number;
  /** Ours: a side has a NUL in its first 8000 bytes; counts are then 0. */
  binary: boolean;
}

// ---------------------------------------------------------------------------
// History and objects

export interface GitPerson {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes, as isomorphic-git counts them: positive west of UTC. */
  timezoneOffset: number;
}

export interface CommitView {
  oid: string;
  /** As stored, with its final newline. */
  message: string;
  tree: string;
  parent: string[];
  author: GitPerson;
  committer: GitPerson;
}

export interface GitLogOptions extends Dir {
  /** Where the walk starts; default HEAD. Any revision (`main~2`, an abbreviated oid). */
  ref?: string;
  /** At most this many commits. */
  depth?: number;
}

export interface GitShowOptions extends Dir {
  /** A revision naming a commit (annotated tags are followed). */
  ref: string;
}

export interface GitRevParseOptions extends Dir {
  /** A ref, a full or abbreviated oid, with `^`, `^N`, `~N` suffixes. */
  ref: string;
}

export interface GitLsFilesOptions extends Dir {
  /** The files of this revision's tree instead of the index. */
  ref?: string;
}

export interface GitLsTreeOptions extends Dir {
  /** The tree-ish to list. */
  ref: string;
  /** A directory inside it; default its root. */
  path?: string;
  /** Ours: descend into subtrees, listing their files with full paths. */
  recursive?: boolean;
}

/** One entry of a tree. */
export interface TreeEntryView {
  /** Octal, six digits as isomorphic-git writes them (`100644`, `040000`). */
  mode: string;
  /** The entry's name (with `recursive`, its path from the listed tree). */
  path: string;
  oid: string;
  type: "blob" | "tree" | "commit";
}

export interface GitHashObjectOptions extends Dir {
  /** The blob's bytes (text is UTF-8). */
  content?: Uint8Array | string;
  /** Ours: or an absolute workspace path to read them from. */
  path?: string;
  /** Also store the blob. */
  write?: boolean;
}

export interface GitCatFileOptions extends Dir {
  /** The object: an oid, or ours, any revision or `<rev>:<path>`. */
  oid: string;
  /** A path inside the tree `oid` names. */
  filepath?: string;
}

export interface CatFileResult {
  oid: string;
  /** The object's content (a tree in git's binary form). */
  bytes: Uint8Array;
  /** Ours. */
  type: "blob" | "tree" | "commit" | "tag";
  /** Ours: `bytes.byteLength`. */
  size: number;
}

// ---------------------------------------------------------------------------
// Refs

export interface GitBranchOptions extends Dir {
  name: string;
  /** Default HEAD. */
  startPoint?: string;
  /** Switch to it too. */
  checkout?: boolean;
  /** Move an existing branch of that name. */
  force?: boolean;
}

export interface GitBranchDeleteOptions extends Dir {
  name: string;
}

export interface GitBranchListOptions extends Dir {
  /** Ours: the branches of this remote instead of the local ones. */
  remote?: string;
}

export interface GitTagOptions extends Dir {
  name: string;
  /** What the (lightweight) tag points at; default HEAD. */
  object?: string;
  /** Move an existing tag of that name. */
  force?: boolean;
}

export interface GitTagDeleteOptions extends Dir {
  name: string;
}

export interface GitTagListOptions extends Dir {}

export interface GitCheckoutOptions extends Dir {
  /** A branch, tag or commit (a commit or tag detaches HEAD). */
  ref: string;
  /** Only these paths, from `ref`, leaving HEAD where it is. */
  paths?: string[];
  /** Overwrite local changes. */
  force?: boolean;
  /** Ours: create the branch `ref` at HEAD first (`checkout -b`). */
  create?: boolean;
}

export interface GitUpdateRefOptions extends Dir {
  /** `refs/heads/main`, or `HEAD`. */
  ref: string;
  /** An oid (ours: any revision); with `symbolic`, the ref to point at. */
  value?: string;
  /** Overwrite an existing ref. Default false, as in the original. */
  force?: boolean;
  symbolic?: boolean;
  /** Ours: delete the ref. */
  delete?: boolean;
}

// ---------------------------------------------------------------------------
// Remotes

export interface GitFetchOptions extends RemoteOptions {
  depth?: number;
  /** Only `ref`'s branch; default true when `ref` is given. */
  singleBranch?: boolean;
  tags?: boolean;
  /** Delete remote-tracking refs the remote no longer has. */
  prune?: boolean;
}

export interface FetchResult {
  /** The remote's HEAD (`refs/heads/main`), or null when it does not say. */
  defaultBranch: string | null;
  /** The commit fetched for the requested or default branch, or null. */
  fetchHead: string | null;
}

export interface GitPushOptions extends RemoteOptions {
  /** Push even when it is not a fast-forward. */
  force?: boolean;
  /** Delete `remoteRef` (or `ref`) on the remote. */
  delete?: boolean;
}

/** How the remote took one ref. */
export interface RefUpdateStatus {
  ok: boolean;
  error?: string;
}

export interface PushResult {
  ok: boolean;
  error: string | null;
  refs: Record<string, RefUpdateStatus>;
}

export interface GitPullOptions extends RemoteOptions {
  /** `false`: a merge commit even when a fast-forward would do. */
  fastForward?: boolean;
  /** Fail unless it is a fast-forward. */
  fastForwardOnly?: boolean;
  singleBranch?: boolean;
  /** The merge commit's author, if there is one; defaults as for `commit`. */
  author?: GitSignature;
  committer?: GitSignature;
  env?: Record<string, string>;
}

export interface GitMergeOptions extends Dir {
  /** The branch or commit to merge in. */
  theirs: string;
  /** The branch merged into; default the current one. */
  ours?: string;
  /** `false`: a merge commit even when a fast-forward would do. */
  fastForward?: boolean;
  fastForwardOnly?: boolean;
  /** The merge commit's message. */
  message?: string;
  author?: GitSignature;
  committer?: GitSignature;
  env?: Record<string, string>;
}

/** One of the flags is set; `oid` is where the branch now is. */
export interface MergeResult {
  oid?: string;
  alreadyMerged?: boolean;
  fastForward?: boolean;
  /** isomorphic-git's, which the original passes through: a merge commit was made, with this tree. */
  mergeCommit?: boolean;
  tree?: string;
}

export interface GitRemoteAddOptions extends Dir {
  name: string;
  url: string;
  /** Replace an existing remote of that name. */
  force?: boolean;
}

export interface GitRemoteRemoveOptions extends Dir {
  name: string;
}

export interface GitRemoteListOptions extends Dir {}

export interface RemoteView {
  name: string;
  url: string;
}

// ---------------------------------------------------------------------------
// Config

export interface GitConfigGetOptions extends Dir {
  /** `section.key` or `section.subsection.key`. */
  path: string;
  /** Every value of a multi-valued key (an array). */
  all?: boolean;
}

export interface GitConfigSetOptions extends Dir {
  path: string;
  /** `undefined` removes the key. */
  value: string | boolean | number | undefined;
  /** Add a value to a multi-valued key instead of replacing it. */
  append?: boolean;
}

// ---------------------------------------------------------------------------
// Work tree

export interface StashPushOptions extends Dir {
  message?: string;
}

export interface StashPopOptions extends Dir {
  /** Which entry; default 0, the newest. */
  index?: number;
}

export interface ResetOptions extends Dir {
  /** Default HEAD. */
  ref?: string;
  /** Reset only these paths' index entries to `ref`; the work tree is left alone. */
  paths?: string[];
  /** Move the branch to `ref` and make the index and the work tree match it. */
  hard?: boolean;
}

export interface CleanOptions extends Dir {
  /** Remove untracked directories too (`-d`). */
  directories?: boolean;
  /** Report what would go, removing nothing. */
  dryRun?: boolean;
  /** Ours: only these repository paths. */
  paths?: string[];
}

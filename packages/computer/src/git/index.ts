/**
 * `@cloudflare/computer/git`: workspace git on isomorphic-git over the
 * workspace filesystem. Opt in with `new Workspace({ git: createGitClient() })`;
 * this subpath is the only one that imports isomorphic-git.
 */

export type { GitIdentity } from "../workspace/capabilities.js";
export type { AddOptions, CommitOptions, CommitResult, RmOptions } from "./api/commit.js";
export type { DiffOptions, DiffSide, DiffSummary, FileDiff } from "./api/diff.js";
export type { LogEntry, LogOptions, ShowResult } from "./api/history.js";
export type { MergeOptions, MergeResult } from "./api/merge.js";
export type { CatFileResult, HashObjectOptions, LsTreeEntry } from "./api/objects.js";
export type { PullOptions } from "./api/pull.js";
export type { BranchOptions, CheckoutOptions, UpdateRefOptions } from "./api/refs.js";
export type { CloneOptions, FetchOptions, PushOptions, RemoteResult } from "./api/remote.js";
export type { InitOptions } from "./api/repo.js";
export type { CleanOptions, ResetOptions } from "./api/reset.js";
export type { GitSide, GitStatus, GitStatusEntry, StatusOptions } from "./api/status.js";
export { GIT_VERSION_TEXT, SUBCOMMANDS } from "./cli/index.js";
export { createGitClient, GitClient, type GitClientFactory, type GitClientOptions } from "./client.js";
export type { GitRemoteAuth } from "./context.js";
export {
  AlreadyInitializedError,
  exitCodeOf,
  GIT_ERROR_CODES,
  GitError,
  type GitErrorCode,
  type GitErrorOptions,
  GitUsageError,
  isGitError,
  MissingIdentityError,
  NotARepositoryError,
  PathOutsideRepoError,
  PathspecNotFoundError,
} from "./errors.js";
export { formatStatusLong, formatStatusPorcelainV2, formatStatusShort, type StatusFormatOptions } from "./format.js";
export { createGitFs, type GitFs, type GitFsPromises, type GitFsStat } from "./fs-adapter.js";
export { type GitEnv, parseIdentity } from "./identity.js";
export type {
  CommitView,
  CreateGitClientOptions,
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
  PushResult,
  RemoteView,
  StashPopOptions,
  StashPushOptions,
  StatusEntry,
  TreeEntryView,
} from "./option-names.js";
export { fetchHttpClient, parseRemoteUrl, type RemoteUrl } from "./transport.js";

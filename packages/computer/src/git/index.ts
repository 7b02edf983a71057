/**
 * `@cloudflare/computer/git`: workspace git on isomorphic-git over the
 * workspace filesystem. Opt in with `new Workspace({ git: createGitClient() })`;
 * this subpath is the only one that imports isomorphic-git.
 */

// Ours: the engine's richer results (statusDetails, showObject, diffFiles), the CLI, formatters and seams.
export type { DiffSide, FileDiff } from "./api/diff.js";
export type { ShowResult } from "./api/history.js";
export type { GitSide, GitStatus, GitStatusEntry } from "./api/status.js";
export { GIT_VERSION_TEXT, SUBCOMMANDS } from "./cli/index.js";
// The original's surface: the client, its factory, errors and types.
export { createGitClient, GitClient, type GitClientFactory } from "./client.js";
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
export { fetchHttpClient, parseRemoteUrl, type RemoteUrl } from "./transport.js";
export type {
  AuthCallback,
  BaseWorktreeOptions,
  CatFileResult,
  CleanOptions,
  CommitResult,
  CommitView,
  CreateGitClientOptions,
  DiffSummaryEntry,
  FetchResult,
  GitAddOptions,
  GitAuth,
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
  GitIdentity,
  GitInitOptions,
  GitLogOptions,
  GitLsFilesOptions,
  GitLsTreeOptions,
  GitMergeOptions,
  GitPerson,
  GitProviderStats,
  GitPullOptions,
  GitPushOptions,
  GitRemoteAddOptions,
  GitRemoteListOptions,
  GitRemoteRemoveOptions,
  GitRepoRootOptions,
  GitRevParseOptions,
  GitRmOptions,
  GitShowOptions,
  GitSignature,
  GitStatusOptions,
  GitTagDeleteOptions,
  GitTagListOptions,
  GitTagOptions,
  GitUpdateRefOptions,
  GitWorkspaceProvider,
  IsomorphicGitFSClient,
  MergeResult,
  MessageCallback,
  ProgressCallback,
  PushResult,
  RefUpdateStatus,
  RemoteView,
  ResetOptions,
  StashPopOptions,
  StashPushOptions,
  StatusEntry,
  StatusRow,
  TreeEntryView,
  WorkspaceGitClientOptions,
  WorkspaceLike,
} from "./types.js";

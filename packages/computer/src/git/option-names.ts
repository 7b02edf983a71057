/**
 * The original's `Git*Options` names for our options types, so code that
 * names them compiles. Where a shape still differs, test/compat/gaps.json
 * lists it (issue 19 row 11).
 */
import type { AddOptions, CommitOptions, RmOptions } from "./api/commit.js";
import type { DiffOptions } from "./api/diff.js";
import type { LogOptions } from "./api/history.js";
import type { MergeOptions } from "./api/merge.js";
import type { HashObjectOptions } from "./api/objects.js";
import type { PullOptions } from "./api/pull.js";
import type { BranchOptions, CheckoutOptions, UpdateRefOptions } from "./api/refs.js";
import type { CloneOptions, FetchOptions, PushOptions } from "./api/remote.js";
import type { InitOptions } from "./api/repo.js";
import type { StatusOptions } from "./api/status.js";
import type { GitClient, GitClientOptions } from "./client.js";

export type GitAddOptions = AddOptions;
export type GitBranchOptions = BranchOptions;
export type GitCheckoutOptions = CheckoutOptions;
export type GitCloneOptions = CloneOptions;
export type GitCommitOptions = CommitOptions;
export type GitDiffOptions = DiffOptions;
export type GitFetchOptions = FetchOptions;
export type GitHashObjectOptions = HashObjectOptions;
export type GitInitOptions = InitOptions;
export type GitLogOptions = LogOptions;
export type GitMergeOptions = MergeOptions;
export type GitPullOptions = PullOptions;
export type GitPushOptions = PushOptions;
export type GitRmOptions = RmOptions;
export type GitStatusOptions = StatusOptions;
export type GitUpdateRefOptions = UpdateRefOptions;

// The rest of the original's option names, read off `GitClient`'s methods so
// they cannot drift from what the methods take.
type OptionsOf<M extends keyof GitClient> = GitClient[M] extends (options: infer O) => unknown ? NonNullable<O> : never;
type Resolved<M extends keyof GitClient> = GitClient[M] extends (...args: never[]) => Promise<infer R> ? R : never;
type Element<T> = T extends readonly (infer E)[] ? E : never;

export type GitBranchDeleteOptions = OptionsOf<"branchDelete">;
export type GitBranchListOptions = OptionsOf<"branchList">;
export type GitCatFileOptions = OptionsOf<"catFile">;
export type GitConfigGetOptions = OptionsOf<"configGet">;
export type GitConfigSetOptions = OptionsOf<"configSet">;
export type GitCurrentBranchOptions = OptionsOf<"currentBranch">;
export type GitLsFilesOptions = OptionsOf<"lsFiles">;
export type GitLsTreeOptions = OptionsOf<"lsTree">;
export type GitRemoteAddOptions = OptionsOf<"remoteAdd">;
export type GitRemoteListOptions = OptionsOf<"remoteList">;
export type GitRemoteRemoveOptions = OptionsOf<"remoteRemove">;
export type GitRepoRootOptions = OptionsOf<"repoRoot">;
export type GitRevParseOptions = OptionsOf<"revParse">;
export type GitShowOptions = OptionsOf<"show">;
export type GitTagDeleteOptions = OptionsOf<"tagDelete">;
export type GitTagListOptions = OptionsOf<"tagList">;
export type GitTagOptions = OptionsOf<"tag">;
export type StashPopOptions = OptionsOf<"stashPop">;
export type StashPushOptions = OptionsOf<"stashPush">;
/** `createGitClient(options)`. */
export type CreateGitClientOptions = GitClientOptions;
export type { GitCliRequest as GitCliInput, GitCliResult } from "../workspace/capabilities.js";

// Result names.
export type CommitView = Element<Resolved<"log">>;
export type StatusEntry = Element<Resolved<"status">>;
export type RemoteView = Element<Resolved<"remoteList">>;
export type TreeEntryView = Element<Resolved<"lsTree">>;
export type FetchResult = Resolved<"fetch">;
export type PushResult = Resolved<"push">;

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

/**
 * The original's names for the artifacts types. The CLI's input and the
 * `remoteAdd` seam are defined with the Workspace's capabilities (the
 * shell's `artifacts` command sends them to the host); here they get the
 * names `@cloudflare/computer/artifacts` exports.
 */
import type { ArtifactsCliRequest, ArtifactsRemoteAdd, GitCliResult } from "../contracts/capabilities.js";
import type { ArtifactsListedRepo, ImportOptions, ImportSource, TokenScope } from "./types.js";

export type ArtifactScope = TokenScope;
export type ArtifactImportSource = ImportSource;
export type ArtifactImportOptions = ImportOptions;
/** What `list` answers per repository: the binding's listing (no `remote`), with the local name. */
export type ArtifactRepoSummary = ArtifactsListedRepo;
export type RemoteAddFn = ArtifactsRemoteAdd;
export type ArtifactsCLIInput = ArtifactsCliRequest;
export type ArtifactsCLIResult = GitCliResult;

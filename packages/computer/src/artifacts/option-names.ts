/**
 * The original's names for our artifacts types, so code that names them
 * compiles. Where a shape still differs (the CLI's `remoteAdd` seam),
 * test/compat/gaps.json lists it (issue 19 row 14).
 */
import type { ArtifactsCliRequest, GitCliResult } from "../workspace/capabilities.js";
import type { ImportOptions, ImportSource, TokenScope } from "./types.js";

export type ArtifactScope = TokenScope;
export type ArtifactImportSource = ImportSource;
export type ArtifactImportOptions = ImportOptions;
export type ArtifactsCLIInput = ArtifactsCliRequest;
export type ArtifactsCLIResult = GitCliResult;

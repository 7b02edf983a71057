/**
 * `@cloudflare/computer/artifacts`: git repositories for agents on
 * Cloudflare's Artifacts binding (`env.ARTIFACTS`, passed as it is), scoped
 * to a session, with the `artifacts` CLI. `MemoryArtifactsBinding` is the
 * same interface in memory, for tests and local development.
 */
export {
  type Artifact,
  type ArtifactClient,
  createArtifact,
  createUnconfiguredArtifact,
  credentialedRemote,
  LIST_PAGE_SIZE,
} from "./artifact.js";
export { ARTIFACTS_HELP, runArtifactsCLI } from "./cli/index.js";
export { parseTtl } from "./cli/ttl.js";
export {
  ArtifactError,
  type ArtifactErrorCode,
  ArtifactsError,
  type ArtifactsErrorCode,
  InvalidRepoNameError,
  InvalidSessionIdError,
  NotFoundError,
} from "./errors.js";
export {
  MemoryArtifactsBinding,
  type MemoryArtifactsBindingOptions,
  MemoryArtifactsError,
  type MemoryRepoOrigin,
} from "./memory-binding.js";
export type {
  ArtifactImportOptions,
  ArtifactImportSource,
  ArtifactRepoSummary,
  ArtifactScope,
  ArtifactsCLIInput,
  ArtifactsCLIResult,
  RemoteAddFn,
} from "./option-names.js";
export { remoteAddVia } from "./remote-add.js";
export type {
  ArtifactsBinding,
  ArtifactsCreatedRepo,
  ArtifactsListedRepo,
  ArtifactsListPage,
  ArtifactsRepoHandle,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  ArtifactsTokenList,
  CreateRepoOptions,
  ImportOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

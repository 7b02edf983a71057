/**
 * `@cloudflare/computer/artifacts`: git repositories for agents on the
 * Cloudflare Artifacts binding, scoped to a session, with the `artifacts`
 * CLI. `MemoryArtifactsBinding` stands in for the binding off Cloudflare.
 */
export { type Artifact, createArtifact, credentialedRemote, LIST_PAGE_SIZE } from "./artifact.js";
export { ARTIFACTS_HELP, runArtifactsCLI } from "./cli/index.js";
export { parseTtl } from "./cli/ttl.js";
export {
  ArtifactsError,
  type ArtifactsErrorCode,
  InvalidRepoNameError,
  InvalidSessionIdError,
  NotFoundError,
} from "./errors.js";
export { MemoryArtifactsBinding, type MemoryArtifactsBindingOptions } from "./memory-binding.js";
export { remoteAddVia } from "./remote-add.js";
export type {
  ArtifactsBinding,
  ArtifactsListPage,
  ArtifactsRepoInfo,
  ArtifactsToken,
  ArtifactsTokenInfo,
  CreateRepoOptions,
  ImportSource,
  TokenScope,
} from "./types.js";

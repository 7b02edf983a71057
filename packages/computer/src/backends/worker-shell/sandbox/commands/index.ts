/** The host commands every worker-shell registers, one file each. */

export {
  defineArtifactsCommand,
  type RemoteAddRequest,
  type RemoteAddResult,
  remoteAdder,
  type ShellArtifactsHost,
  type ShellArtifactsLike,
} from "./artifacts.js";
export {
  type AssetsCommandHost,
  DEFAULT_PUBLISH_EXPIRY_MS,
  defineAssetsCommand,
  parseExpiry,
  type ShellAssetsLike,
} from "./assets.js";
export { defineGitCommand, type ShellGitLike } from "./git.js";

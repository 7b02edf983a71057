/**
 * `@cloudflare/computer/backends/worker-shell`: just-bash in a Dynamic Worker,
 * working directly on the workspace's files. See docs/worker-shell.md.
 * Optional command groups are separate imports:
 * `import curl from "@cloudflare/computer/shell/curl"`.
 */

export {
  assembleShellModules,
  enabledCommands,
  SHELL_CORE_MODULES,
  SHELL_RUNTIME_MODULES,
  WorkerShellBackend,
} from "./host/backend.js";
export type { ShellModuleGroup } from "./host/modules.js";
export type {
  ShellWorkerLoaderLike as WorkerShellLoader,
  WorkerShellEgress as WorkspaceEgressPolicy,
  WorkerShellOptions as WorkerShellBackendOptions,
} from "./host/options.js";
export {
  type FetcherLike,
  type ShellHostContext,
  type ShellHostContextInput,
  type ShellWorkerCode,
  type ShellWorkerLoaderLike,
  WORKER_SHELL_COMPATIBILITY_DATE,
  WORKER_SHELL_ID,
  type WorkerShellEgress,
  type WorkerShellExternalSource,
  type WorkerShellLoaderSource,
  type WorkerShellOptions,
  type WorkerShellSource,
  type WorkspaceRef,
} from "./host/options.js";
export { ShellWorker } from "./host/shell-worker.worker.js";
export type { WorkspaceFs } from "./host/workspace-fs.js";
export type { ShellExecArgs as ExecInput } from "./protocol/messages.js";
export {
  KILLED_EXIT_CODE,
  SHELL_DEFAULT_CWD,
  SHELL_GROUP_COMMANDS,
  SHELL_OUTPUT_LIMIT_BYTES,
  type ShellExecArgs,
  type ShellExecReply,
  type ShellGroupName,
  TIMED_OUT_EXIT_CODE,
  TIMED_OUT_MESSAGE,
  type WorkerShellRuntime,
} from "./protocol/messages.js";
// The original's names for the same types.
export type { ShellArtifactsHost as ArtifactsCommandHost } from "./sandbox/commands/artifacts.js";
export type { GitCommandHost } from "./sandbox/commands/git.js";
export type { AssetsCommandHost } from "./sandbox/commands/index.js";
export {
  DEFAULT_PUBLISH_EXPIRY_MS,
  defineArtifactsCommand,
  defineAssetsCommand,
  defineGitCommand,
  parseExpiry,
  type RemoteAddRequest,
  type RemoteAddResult,
  type ShellArtifactsHost,
  type ShellArtifactsLike,
  type ShellAssetsLike,
  type ShellGitLike,
} from "./sandbox/commands/index.js";
export {
  DEV_NULL,
  type WorkspaceDirEntryLike,
  WorkspaceFsAdapter,
  type WorkspaceFsLike,
  type WorkspaceStatLike,
} from "./sandbox/fs-adapter.js";
export type {
  ShellHost,
  ShellRunOptions,
  ShellRunResult,
  ShellWorkerEnv,
  ShellWorkerOptions,
  ShellWorkerProps,
  ShellWorkspace,
} from "./sandbox/shell.js";

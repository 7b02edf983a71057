/**
 * `@cloudflare/computer`: the Workspace, its runtime and the seams backends
 * plug into. This entry runs in workerd (it builds Workers RPC stubs); the
 * runtime core under `src/runtime/` is runtime-neutral.
 */

export {
  type DurableObjectStorageLike,
  SQLiteWorkspaceProvider,
  type SQLiteWorkspaceProviderOptions,
} from "@cloudflare/dofs";
export type { ApplyResult, RefusedEntry, SkippedEntry } from "@cloudflare/dofs/sync";
export { ArtifactsCLITarget } from "./artifacts/cli-target.worker.js";
// Exported here too, as in the original: a container's way back in, re-exported from the Worker's main module.
export { WorkspaceProxy, type WorkspaceProxyProps } from "./backends/container/host/platform.worker.js";
export type { WorkspaceEgressPolicy } from "./backends/container/host/types.js";
export { TestBackend, type TestBackendOptions } from "./backends/running-computerd/backend.js";
/** The original's host-module form for worker-javascript (`trustedModules: { "ws:x": { call } }`). */
export type {
  WorkerLoaderLike as WorkspaceRuntimeLoader,
  WorkspaceTrustedModule,
} from "./backends/worker-javascript/host/options.js";
export type {
  ArtifactsCliRequest,
  ArtifactsRemoteAdd,
  AssetsShareClient,
  AssetsShareOptions,
  CapabilityOption,
  GitCliRequest,
  GitCliResult,
  GitIdentity,
  PublishedAsset,
  PublishOptions,
  WorkspaceArtifacts,
  WorkspaceAssets,
  WorkspaceAssetsClient,
  WorkspaceAssetsOption,
  WorkspaceAssetsPublisher,
  WorkspaceGit,
  WorkspaceGitFactoryFunction,
  WorkspaceGitProvider,
} from "./contracts/capabilities.js";
export type { WorkspaceClientFilesystem } from "./contracts/fs-client.js";
export { type RawShellValue, type ShellValue, sh, shellQuote } from "./contracts/sh.js";
/** The original's name for what the `git` option takes: `createGitClient()`'s factory. Type only, so the root does not pull in isomorphic-git. */
export type { GitClientFactory as WorkspaceGitFactory } from "./git/client.js";
// Host modules (`ws:*`) of worker-javascript, as 0.8.0 shapes them; the prebuilt ones are under ./modules/*.
export type {
  WorkspaceModule,
  WorkspaceModuleCallContext,
  WorkspaceModuleFactory,
  WorkspaceModuleFunction,
  WorkspaceModuleFunctions,
  WorkspaceModuleHost,
} from "./modules/types.js";
export {
  R2Bucket,
  type R2BucketBinding,
  type R2BucketOptions,
  type R2Mount,
  type R2MountBinding,
} from "./mounts/r2-bucket.js";
export type {
  EagerMount,
  MaterializeContext,
  Mount,
  MountBase,
  MountContext,
  MountFactory,
  MountFactoryContext,
  MountOption,
  MountsOption,
  MountWriteAPI,
} from "./mounts/types.js";
export {
  noopObserver,
  type WorkspaceAttributes,
  type WorkspaceAttributeValue,
  type WorkspaceObserver,
  type WorkspaceSpan,
} from "./observe/observer.js";
export type {
  BackendContext,
  BackendExec,
  BackendHandle as CommandBackendHandle,
  CommandBackend,
  DirectBackend,
  DirectExec,
  DirectExecRequest,
  ShellExecRequest,
  ShellRPCLike,
  ShellRpcLike,
  WireExecEvent,
} from "./runtime/backend.js";
export { decodeUtf8Events, Utf8EventDecoder } from "./runtime/decode.js";
export {
  isExecutionLost,
  WORKSPACE_ERROR_CODES,
  WorkspaceError,
  type WorkspaceErrorCode,
  WorkspaceExecutionLostError,
  WorkspacePreDispatchTransportError,
  WorkspaceTransportError,
} from "./runtime/errors.js";
export { decodeExecEvents, encodeExecEvents } from "./runtime/exec-wire.js";
export { executionKey, FENCE_CACHE_ENTRIES } from "./runtime/fence.js";
export {
  ExecHandle,
  type ExecHandleOptions,
  emptySyncSummary,
  type WorkspaceRuntimeExecHandle,
} from "./runtime/handle.js";
// `BackendHandle` and `WorkspaceBackend` are the original's (a command backend without `kind` among them).
export type {
  HostedBackend,
  HostedBackendHandle as BackendHandle,
  HostedBackendHandle,
  WorkspaceBackend,
  WorkspaceBackendHost,
  WorkspaceRegisteredBackend,
} from "./runtime/hosted-backend.js";
export type {
  ModuleExecutionEnvelope,
  ModuleExecutionInput,
  ModuleExecutionSync,
  WorkspaceModuleBackend,
  WorkspaceModuleBackendHandle,
  WorkspaceModuleBackendHost,
} from "./runtime/module-backend.js";
export type {
  TruncatedOutput,
  WorkspaceOutputOptions,
  WorkspaceRuntimeOutputOptions,
  WorkspaceRuntimeTruncation,
} from "./runtime/output/options.js";
export {
  DEFAULT_SYNC_RETRY,
  type RetryPendingSyncResult,
  type RetryPendingSyncResult as WorkspaceRetryPendingSyncResult,
  retryNotBefore,
  type SqlSyncRetrySchedulerOptions,
  type SyncRetryIntent,
  type SyncRetryOptions,
  type SyncRetryScheduler,
  sqlSyncRetryScheduler,
} from "./runtime/retry.js";
export { type ExecTemplateArgs, WorkspaceRuntime } from "./runtime/runtime.js";
export { MISSING_EXIT_CODE, statusForExitCode } from "./runtime/status.js";
export { isTransportError, SAFE_MESSAGE_MAX_CHARS, safeErrorMessage } from "./runtime/transport.js";
export type {
  DisposeExecOptions,
  ExecChunk,
  ExecEncoding,
  ExecEvent,
  ExecExitEvent,
  ExecOptions,
  ExecOutputEvent,
  ExecResult,
  ExecStatus,
  ExecSyncResult,
  ExecSyncSummary,
  GetExecOptions,
  KillExecOptions,
  KillSignal,
  RuntimeExecOptions,
  RuntimeGetOptions,
  RuntimeKillOptions,
  WorkspaceExecEvent,
  WorkspaceRuntimeAccess,
  WorkspaceRuntimeArray,
  WorkspaceRuntimeDisposeOptions,
  WorkspaceRuntimeEvent,
  WorkspaceRuntimeExecOptions,
  WorkspaceRuntimeGetOptions,
  WorkspaceRuntimeKillOptions,
  WorkspaceRuntimeObject,
  WorkspaceRuntimeResult,
  WorkspaceRuntimeStatus,
  WorkspaceRuntimeValue,
} from "./runtime/types.js";
export { MAX_EXEC_ID_BYTES, validateCwd, validateExecId, validateInput } from "./runtime/validate.js";
export { decodeRuntimeEvents, encodeRuntimeEvent, type RuntimeEventFrame } from "./runtime/wire.js";
// The Workers RPC surface of a Workspace: stubs, the client, the Durable Object mixin, the service proxy, and Think.
export {
  getWorkspace,
  type WorkspaceClient,
  type WorkspaceClientArtifacts,
  type WorkspaceClientRuntime,
  type WorkspaceHandle,
  type WorkspaceRuntimeClient,
} from "./workspace/client.js";
export type { WorkspaceExecHandle } from "./workspace/remote-handle.js";
export { WorkspaceServiceProxy, type WorkspaceServiceProxyProps } from "./workspace/service-proxy.worker.js";
export {
  WorkspaceArtifactsStub,
  WorkspaceAssetsStub,
  WorkspaceFilesystemStub,
  WorkspaceGitStub,
  WorkspaceRuntimeExecHandleStub,
  WorkspaceRuntimeStub,
  WorkspaceStub,
} from "./workspace/stub.worker.js";
export { isThinkWorkspace, type ThinkFileInfo, type ThinkWorkspaceCompatibility } from "./workspace/think.js";
export {
  type DurableObjectClass,
  type WithWorkspaceCtor,
  type WorkspaceHost,
  type WorkspaceHostSelf,
  type WorkspaceLocalHost,
  type WorkspaceStubHost,
  withWorkspace,
  workspaceOf,
} from "./workspace/with-workspace.worker.js";
export {
  type PullOptions,
  type PushOptions,
  Workspace,
  type WorkspaceMount,
  type WorkspaceOptions,
  type WorkspaceStorage,
} from "./workspace/workspace.worker.js";

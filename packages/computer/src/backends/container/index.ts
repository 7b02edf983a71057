/**
 * `@cloudflare/computer/backends/container`: the `container-shell` backend
 * (computerd in a Linux container) and the container seam's implementations.
 */
export {
  CloudflareContainerBackend,
  type CloudflareContainerBackendOptions,
  CONTAINER_BACKEND_DEFAULTS,
  type ContainerHostHolder,
  type ContainerSource,
} from "./backend.worker.js";
export { type ConnectStage, PROBE_BACKOFF_MS, PROBE_TIMEOUT_MS } from "./connect.js";
export {
  type ContainerExitInfo,
  type ContainerRuntimeInfo,
  containerFromAPI,
  type IWorkspaceContainerAPI,
  WorkspaceContainerAPI,
} from "./container-api.worker.js";
export { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "./egress.js";
export { CONTAINER_STORAGE_KEYS, type LaunchStorage } from "./launch.js";
export { type LocalContainerOptions, localContainer } from "./local.js";
export {
  CONTAINER_HOST_ENV,
  type WithWorkspaceContainerCtor,
  type WorkspaceContainerHost,
  type WorkspaceContainerOptions,
  withWorkspaceContainer,
} from "./mixin.worker.js";
export { WorkspaceProxy, type WorkspaceProxyProps } from "./platform.worker.js";
export type {
  ContainerDial,
  ContainerExit,
  ContainerLaunch,
  ContainerStart,
  ContainerStartStatus,
  WorkspaceContainer,
  WorkspaceEgressPolicy,
  WorkspaceRef,
} from "./types.js";

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
} from "./host/backend.worker.js";
export { type ConnectStage, PROBE_BACKOFF_MS, PROBE_TIMEOUT_MS } from "./host/connect.js";
export {
  type ContainerExitInfo,
  type ContainerRuntimeInfo,
  containerFromAPI,
  type IWorkspaceContainerAPI,
  WorkspaceContainerAPI,
} from "./host/container-api.worker.js";
export { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "./host/egress.js";
export { CONTAINER_STORAGE_KEYS, type LaunchStorage } from "./host/launch.js";
export { type LocalContainerOptions, localContainer } from "./host/local.js";
export {
  CONTAINER_HOST_ENV,
  type WithWorkspaceContainerCtor,
  type WorkspaceContainerHost,
  type WorkspaceContainerOptions,
  withWorkspaceContainer,
} from "./host/mixin.worker.js";
export { WorkspaceProxy, type WorkspaceProxyProps } from "./host/platform.worker.js";
export type {
  ContainerDial,
  ContainerExit,
  ContainerLaunch,
  ContainerStart,
  ContainerStartStatus,
  WorkspaceContainer,
  WorkspaceEgressPolicy,
  WorkspaceRef,
} from "./host/types.js";

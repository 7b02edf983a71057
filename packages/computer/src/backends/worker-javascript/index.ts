/**
 * `@cloudflare/computer/backends/worker-javascript`: run an ES module against
 * the workspace in a fresh Dynamic Worker, with structured input and output
 * and a durable journal. See docs/worker-javascript.md.
 */
export {
  WorkerJavaScriptBackend,
  type WorkerJavaScriptEnvelope,
  type WorkerJavaScriptHandle,
  type WorkerJavaScriptHost,
} from "./host/backend.js";
export { CANCELLED_MESSAGE, TIMED_OUT_MESSAGE } from "./host/execution.js";
export { INTERRUPTED_MESSAGE } from "./host/journal.js";
// The original's names for the same types.
export type {
  WorkerJavaScriptEgress as WorkspaceEgressPolicy,
  WorkerJavaScriptOptions as WorkerJavaScriptBackendOptions,
} from "./host/options.js";
export {
  type FetcherLike,
  type LoaderModule,
  type LoaderWorkerCode,
  MAX_IMPORT_DEPTH,
  MAX_LOADER_MODULES,
  MAX_MODULES,
  type ResolvedOptions,
  type ResolvedTrustedModule,
  type TrustedCallContext,
  type TrustedFunction,
  type TrustedModule,
  type TrustedModules,
  WORKER_JAVASCRIPT_DEFAULTS,
  type WorkerJavaScriptEgress,
  type WorkerJavaScriptOptions,
  type WorkerLoaderLike,
  type WorkspaceTrustedModule,
} from "./host/options.js";
export type { JsonValue } from "./protocol/json.js";
export { STDIO_TRUNCATED_MARKER } from "./protocol/stdio.js";

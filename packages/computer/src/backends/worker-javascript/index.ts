/**
 * `@cloudflare/computer/backends/worker-javascript`: run an ES module against
 * the workspace in a fresh Dynamic Worker, with structured input and output
 * and a durable journal. See docs/worker-javascript.md.
 */
export { WorkerJavaScriptBackend } from "./backend.js";
export { CANCELLED_MESSAGE, TIMED_OUT_MESSAGE } from "./execution.js";
export { INTERRUPTED_MESSAGE } from "./journal.js";
export type { JsonValue } from "./json.js";
export {
  type FetcherLike,
  type LoaderModule,
  type LoaderWorkerCode,
  MAX_IMPORT_DEPTH,
  MAX_LOADER_MODULES,
  MAX_MODULES,
  type ResolvedOptions,
  type TrustedCallContext,
  type TrustedFunction,
  type TrustedModule,
  WORKER_JAVASCRIPT_DEFAULTS,
  type WorkerJavaScriptEgress,
  type WorkerJavaScriptOptions,
  type WorkerLoaderLike,
} from "./options.js";
export { STDIO_TRUNCATED_MARKER } from "./stdio.js";

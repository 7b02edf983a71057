/**
 * `@cloudflare/computer-rpc/driver`: the Durable Object's side of sync. The
 * steps themselves are plain functions over a dofs database and any
 * `SyncRPC` (a capnweb stub in production, a `SyncPeer` in tests); they live
 * in `@cloudflare/dofs/sync` and are re-exported here under the wire names.
 */
export {
  DEFAULT_BATCH_BUDGET,
  PUSH_OBJECT_BUDGET,
  type PullBatchResult,
  type PullOptions,
  type PullResult,
  type PushBatchResult,
  pullBatch,
  pullOnce,
  pushBatch,
  pushOnce,
  reconcileWatermarks,
  SYNC_BATCH_ENTRIES,
  type SyncBudget,
  type SyncLocal,
  tick,
} from "@cloudflare/dofs/sync";
export { SyncQueue } from "./queue.js";

/**
 * `@cloudflare/dofs/sync`: the sync building blocks. Runtime-neutral; the
 * capnweb transport around them is `@cloudflare/computer-rpc`.
 */

export { fromHex, toHex } from "./hex.js";
export { type ApplyResult, type ApplySource, applyChanges, prepareEntries } from "./sync/apply.js";
export { type PlannedChange, planChanges, readChange, readEntry } from "./sync/coalesce.js";
export { checkCursor, compareCursors, maxCursor, minCursor, ZERO_CURSOR } from "./sync/cursor.js";
export { checkEntry } from "./sync/entry.js";
export {
  DEFAULT_BATCH_BUDGET,
  PUSH_OBJECT_BUDGET,
  SYNC_BATCH_ENTRIES,
  type SyncBudget,
  type SyncLocal,
} from "./sync/local.js";
export { HAS_OBJECTS_LIMIT, SyncPeer, type SyncPeerOptions } from "./sync/peer.js";
export { type PullBatchResult, type PullOptions, type PullResult, pullBatch, pullOnce } from "./sync/pull.js";
export { type PushBatchResult, pushBatch, pushOnce } from "./sync/push.js";
export { reconcileWatermarks, tick } from "./sync/reconcile.js";
export type {
  ChangeEntry,
  ChunkEntry,
  Cursor,
  DeleteChange,
  DirChange,
  FetchChangesRequest,
  FetchChangesResult,
  FileChange,
  LiveChange,
  ObjectFrame,
  PushRequest,
  PushResult,
  RefusedEntry,
  SkippedEntry,
  SymlinkChange,
  SyncRPC,
  Watermarks,
} from "./sync/types.js";
export {
  advancePullCursor,
  getPullCursor,
  getPushCursor,
  type LocalWatermarks,
  localWatermarks,
  setPullCursor,
  setPushCursor,
} from "./sync/watermarks.js";
export {
  fromWire,
  type StoredChange,
  type StoredFileChange,
  type StoredLiveChange,
  toWire,
} from "./sync/wire.js";

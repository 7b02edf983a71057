import type { Database } from "../database.js";
import { ensureSchema } from "../schema.js";

/** The Durable Object's side of a sync: its database and which peer's watermarks to use. */
export interface SyncLocal {
  db: Database;
  /** Which peer's watermarks to use (a workspace passes the execution backend's id). Default `'default'`. */
  peer?: string;
  now?: () => number;
}

export interface ResolvedLocal {
  db: Database;
  peer: string;
  now: () => number;
}

export function resolveLocal(local: SyncLocal): ResolvedLocal {
  const now = local.now ?? Date.now;
  ensureSchema(local.db, now());
  return { db: local.db, peer: local.peer ?? "default", now };
}

/** Caps for one bounded sync step (the retry path uses 64 entries / 4 MiB). */
export interface SyncBudget {
  maxEntries: number;
  maxBytes: number;
  maxWallTimeMs?: number;
  /** Stop at this cursor instead of the remote's (or local) current rev. */
  targetCursor?: import("./types.js").Cursor;
}

/** Entries per push or pull batch. */
export const SYNC_BATCH_ENTRIES = 256;
/** Blob bytes one push batch may send before the entries go. */
export const PUSH_OBJECT_BUDGET = 4 * 1024 * 1024;
/** The default budget of a retried (deferred) sync. */
export const DEFAULT_BATCH_BUDGET: SyncBudget = Object.freeze({ maxEntries: 64, maxBytes: 4 * 1024 * 1024 });

/**
 * Pending-sync retries. When the pull after an execution fails (or is
 * deferred on purpose), the changes still sit in the backend; an *intent*
 * records that they must be pulled, and the host retries it from a Durable
 * Object alarm with `workspace.retryPendingSync()`. The host owns storage and
 * the alarm through `SyncRetryScheduler`; `sqlSyncRetryScheduler` is a ready
 * one over the workspace's SQLite.
 */
import type { Database } from "@cloudflare/dofs";
import type { Cursor, RefusedEntry, SkippedEntry } from "@cloudflare/dofs/sync";
import { toDatabase, type WorkspaceStorage } from "./storage.js";

export interface SyncRetryIntent {
  backend: string;
  /** Pull at least this far; unset means "whatever the backend has". */
  targetCursor?: Cursor;
  /** The runtime that holds the changes; a different one means they are gone (`lost`). */
  runtimeId?: string;
  /** 1 for the first try. */
  attempt: number;
  /** Epoch ms before which the retry should not run. */
  notBefore: number;
  /** Why the last try failed, already passed through `safeErrorMessage`. */
  error?: string;
}

/** At most one intent per backend: `schedule` replaces. */
export interface SyncRetryScheduler {
  get(backend: string): SyncRetryIntent | undefined | Promise<SyncRetryIntent | undefined>;
  schedule(intent: SyncRetryIntent): void | Promise<void>;
  clear(backend: string): void | Promise<void>;
}

export interface SyncRetryOptions {
  /** Delay before the first retry, ms. Default 1000. */
  initialDelayMs?: number;
  /** Cap of the doubling delay, ms. Default 60000. */
  maxDelayMs?: number;
  /** Failed tries before `exhausted`. Default 5. */
  maxAttempts?: number;
}

export const DEFAULT_SYNC_RETRY: Readonly<Required<SyncRetryOptions>> = Object.freeze({
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  maxAttempts: 5,
});

export function resolveSyncRetryOptions(options: SyncRetryOptions = {}): Required<SyncRetryOptions> {
  const resolved = { ...DEFAULT_SYNC_RETRY, ...options };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`syncRetry.${name} must be a positive integer; got ${String(value)}`);
    }
  }
  return resolved;
}

/** `notBefore` of try `attempt`: `now + min(maxDelay, initial · 2^(attempt−1))`. */
export function retryNotBefore(now: number, attempt: number, options: Required<SyncRetryOptions>): number {
  const delay = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return now + delay;
}

export type RetryPendingSyncResult =
  | { status: "idle"; backend: string }
  | { status: "complete"; backend: string; applied: number; skipped: SkippedEntry[]; refused?: RefusedEntry[] }
  | {
      status: "pending";
      backend: string;
      runtimeId?: string;
      applied: number;
      skipped: SkippedEntry[];
      /** Ours: entries refused for a name too long to store; absent when none. */
      refused?: RefusedEntry[];
      attempt: number;
      notBefore: number;
      /** Why the pull is still pending: the failure, or that the budget ran out with entries left. */
      error: string;
    }
  | { status: "exhausted"; backend: string; runtimeId?: string; attempt: number; error: string }
  | { status: "lost"; backend: string; runtimeId: string; error: string };

const CREATE = `CREATE TABLE IF NOT EXISTS computer_sync_retry (
  backend TEXT PRIMARY KEY,
  intent TEXT NOT NULL,
  not_before INTEGER NOT NULL
) WITHOUT ROWID`;

export interface SqlSyncRetrySchedulerOptions {
  /**
   * Called with the earliest `notBefore` of all intents after every change
   * (undefined when none is left): point the Durable Object's alarm at it,
   * e.g. `(at) => at === undefined ? storage.deleteAlarm() : storage.setAlarm(at)`.
   */
  onChange?(earliest: number | undefined): void | Promise<void>;
}

/** Intents in the workspace's SQLite (`computer_sync_retry`), so they survive restarts. */
export function sqlSyncRetryScheduler(
  storage: WorkspaceStorage,
  options: SqlSyncRetrySchedulerOptions = {},
): SyncRetryScheduler {
  const db = toDatabase(storage);
  let ready = false;
  const table = (): Database => {
    if (!ready) {
      db.run(CREATE);
      ready = true;
    }
    return db;
  };
  const changed = async (): Promise<void> => {
    const row = table().one<{ at: number | null }>("SELECT min(not_before) AS at FROM computer_sync_retry");
    await options.onChange?.(row?.at ?? undefined);
  };
  return {
    get(backend) {
      const row = table().one<{ intent: string }>("SELECT intent FROM computer_sync_retry WHERE backend = ?", backend);
      return row === undefined ? undefined : (JSON.parse(row.intent) as SyncRetryIntent);
    },
    async schedule(intent) {
      table().run(
        `INSERT INTO computer_sync_retry (backend, intent, not_before) VALUES (?, ?, ?)
         ON CONFLICT (backend) DO UPDATE SET intent = excluded.intent, not_before = excluded.not_before`,
        intent.backend,
        JSON.stringify(intent),
        intent.notBefore,
      );
      await changed();
    },
    async clear(backend) {
      table().run("DELETE FROM computer_sync_retry WHERE backend = ?", backend);
      await changed();
    },
  };
}

/**
 * Runtime fencing: which runtime (container process) ran each execution.
 * A replaced container starts with an empty log, and a reused id there would
 * be a different command; so once the serving runtime differs from the one an
 * execution ran on, every later call about it fails with EEXEC_LOST and
 * nothing is sent. The map lives in SQLite so it survives a new Durable
 * Object incarnation, with a small LRU in front of it.
 */
import type { Database } from "@cloudflare/dofs";
import { WorkspaceExecutionLostError } from "./errors.js";

/** In-memory entries kept in front of the table. */
export const FENCE_CACHE_ENTRIES = 1024;

const CREATE = `CREATE TABLE IF NOT EXISTS computer_execution_runtime (
  execution_key TEXT PRIMARY KEY,
  runtime_id TEXT NOT NULL
) WITHOUT ROWID`;

export class RuntimeFence {
  readonly #db: Database;
  /** Map iteration order is insertion order: re-inserting on use makes the first key the least recent. */
  readonly #cache = new Map<string, string | null>();
  #ready = false;

  constructor(db: Database) {
    this.#db = db;
  }

  record(backend: string, id: string, runtimeId: string): void {
    const key = executionKey(backend, id);
    this.#table().run(
      `INSERT INTO computer_execution_runtime (execution_key, runtime_id) VALUES (?, ?)
       ON CONFLICT (execution_key) DO UPDATE SET runtime_id = excluded.runtime_id`,
      key,
      runtimeId,
    );
    this.#remember(key, runtimeId);
  }

  /** The runtime that ran the execution, or undefined when it is not known here. */
  runtimeOf(backend: string, id: string): string | undefined {
    const key = executionKey(backend, id);
    if (this.#cache.has(key)) {
      const cached = this.#cache.get(key) ?? undefined;
      this.#remember(key, cached ?? null);
      return cached;
    }
    const row = this.#table().one<{ runtime_id: string }>(
      "SELECT runtime_id FROM computer_execution_runtime WHERE execution_key = ?",
      key,
    );
    this.#remember(key, row?.runtime_id ?? null);
    return row?.runtime_id;
  }

  /** Throws EEXEC_LOST when the execution is known to have run on another runtime than `current`. */
  check(backend: string, id: string, current: string): void {
    const ran = this.runtimeOf(backend, id);
    if (ran !== undefined && ran !== current) throw new WorkspaceExecutionLostError(id, { backend, runtimeId: ran });
  }

  /** Forgets the execution, but only if it ran on `runtimeId` (a stale dispose must not unfence a newer run). */
  forget(backend: string, id: string, runtimeId: string): void {
    const key = executionKey(backend, id);
    this.#table().run(
      "DELETE FROM computer_execution_runtime WHERE execution_key = ? AND runtime_id = ?",
      key,
      runtimeId,
    );
    if (this.#cache.get(key) === runtimeId) this.#cache.delete(key);
  }

  #remember(key: string, runtimeId: string | null): void {
    this.#cache.delete(key);
    this.#cache.set(key, runtimeId);
    if (this.#cache.size > FENCE_CACHE_ENTRIES) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
  }

  #table(): Database {
    if (!this.#ready) {
      this.#db.run(CREATE);
      this.#ready = true;
    }
    return this.#db;
  }
}

/** The table's key, as the reference stores it: `JSON.stringify([backendId, execId])`. */
export function executionKey(backend: string, id: string): string {
  return JSON.stringify([backend, id]);
}

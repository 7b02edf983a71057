/**
 * The durable journal of worker-javascript executions: one row per execution
 * and one per event, in the workspace's SQLite. Events are written as they
 * arrive, so `getExec` can replay a running or finished execution, and an
 * execution that was `running` when its Durable Object went away is found
 * and closed as failed. Plain functions over `(db, backend, …)`.
 */
import type { Database } from "@cloudflare/dofs";
import type { ExecEvent, ExecStatus, WorkspaceRuntimeValue } from "../../../runtime/types.js";

export type JournalStatus = "running" | ExecStatus;

export const INTERRUPTED_MESSAGE =
  "JavaScript execution was interrupted when its Workspace runtime restarted; it did not finish.\n";

export function ensureJournal(db: Database): void {
  db.script(`
    CREATE TABLE IF NOT EXISTS workspace_runtime_executions (
      backend TEXT NOT NULL,
      id TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      finished_at INTEGER,
      PRIMARY KEY (backend, id)
    );
    CREATE INDEX IF NOT EXISTS workspace_runtime_executions_finished
      ON workspace_runtime_executions (backend, finished_at);
    CREATE TABLE IF NOT EXISTS workspace_runtime_events (
      backend TEXT NOT NULL,
      execution_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      name TEXT NOT NULL,
      payload TEXT NOT NULL,
      PRIMARY KEY (backend, execution_id, seq)
    );
  `);
}

export interface ExecutionRow {
  status: JournalStatus;
  created_at: number;
  finished_at: number | null;
}

export function findExecution(db: Database, backend: string, id: string): ExecutionRow | undefined {
  return db.one<ExecutionRow>(
    "SELECT status, created_at, finished_at FROM workspace_runtime_executions WHERE backend = ? AND id = ?",
    backend,
    id,
  );
}

export function insertExecution(db: Database, backend: string, id: string, now: number): void {
  db.run(
    "INSERT INTO workspace_runtime_executions (backend, id, status, created_at) VALUES (?, ?, 'running', ?)",
    backend,
    id,
    now,
  );
}

/** Output payloads are the text; the exit payload is `{"code":…,"result":…}`. */
export function appendEvent(db: Database, backend: string, event: ExecEvent): void {
  const payload =
    event.name === "exit"
      ? JSON.stringify(event.result === undefined ? { code: event.code } : { code: event.code, result: event.result })
      : typeof event.value === "string"
        ? event.value
        : new TextDecoder().decode(event.value);
  db.run(
    "INSERT INTO workspace_runtime_events (backend, execution_id, seq, name, payload) VALUES (?, ?, ?, ?, ?)",
    backend,
    event.id,
    event.seq,
    event.name,
    payload,
  );
}

export function finishExecution(db: Database, backend: string, id: string, status: ExecStatus, now: number): void {
  db.run(
    "UPDATE workspace_runtime_executions SET status = ?, finished_at = ? WHERE backend = ? AND id = ?",
    status,
    now,
    backend,
    id,
  );
}

const encoder = new TextEncoder();

/** Events with `seq > after`, in order. Output values are bytes, as a live stream carries them. */
export function readEvents(db: Database, backend: string, id: string, after: number): ExecEvent[] {
  const rows = db.all<{ seq: number; name: string; payload: string }>(
    "SELECT seq, name, payload FROM workspace_runtime_events WHERE backend = ? AND execution_id = ? AND seq > ? ORDER BY seq",
    backend,
    id,
    after,
  );
  return rows.map((row): ExecEvent => {
    if (row.name === "exit") {
      const exit = JSON.parse(row.payload) as { code: number; result?: WorkspaceRuntimeValue };
      return {
        id,
        seq: row.seq,
        name: "exit",
        code: exit.code,
        ...(exit.result === undefined ? {} : { result: exit.result }),
      };
    }
    return { id, seq: row.seq, name: row.name as "stdout" | "stderr", value: encoder.encode(row.payload) };
  });
}

export function lastSeq(db: Database, backend: string, id: string): number {
  const row = db.one<{ seq: number | null }>(
    "SELECT MAX(seq) AS seq FROM workspace_runtime_events WHERE backend = ? AND execution_id = ?",
    backend,
    id,
  );
  return row?.seq ?? 0;
}

/**
 * Closes an execution whose process is gone (the Durable Object restarted
 * while it ran): an "interrupted" stderr event, exit 1, status failed.
 */
export function markInterrupted(db: Database, backend: string, id: string, now: number): void {
  db.transaction(() => {
    const seq = lastSeq(db, backend, id);
    appendEvent(db, backend, { id, seq: seq + 1, name: "stderr", value: INTERRUPTED_MESSAGE });
    appendEvent(db, backend, { id, seq: seq + 2, name: "exit", code: 1 });
    finishExecution(db, backend, id, "failed", now);
  });
}

/** Every `running` row of this backend that no live execution owns; returns how many were closed. */
export function reconcileRunning(db: Database, backend: string, live: ReadonlySet<string>, now: number): number {
  const rows = db.all<{ id: string }>(
    "SELECT id FROM workspace_runtime_executions WHERE backend = ? AND status = 'running'",
    backend,
  );
  let closed = 0;
  for (const row of rows) {
    if (live.has(row.id)) continue;
    markInterrupted(db, backend, row.id, now);
    closed += 1;
  }
  return closed;
}

export function deleteExecution(db: Database, backend: string, id: string): void {
  db.transaction(() => {
    db.run("DELETE FROM workspace_runtime_events WHERE backend = ? AND execution_id = ?", backend, id);
    db.run("DELETE FROM workspace_runtime_executions WHERE backend = ? AND id = ?", backend, id);
  });
}

/** Drops finished executions older than `retentionMs`, then all but the newest `maxRetained`. */
export function pruneJournal(
  db: Database,
  backend: string,
  now: number,
  retentionMs: number,
  maxRetained: number,
): void {
  const expired = db.all<{ id: string }>(
    `SELECT id FROM workspace_runtime_executions
     WHERE backend = ? AND finished_at IS NOT NULL AND finished_at < ?
     UNION
     SELECT id FROM (
       SELECT id FROM workspace_runtime_executions
       WHERE backend = ? AND finished_at IS NOT NULL
       ORDER BY finished_at DESC, created_at DESC LIMIT -1 OFFSET ?
     )`,
    backend,
    now - retentionMs,
    backend,
    maxRetained,
  );
  for (const row of expired) deleteExecution(db, backend, row.id);
}

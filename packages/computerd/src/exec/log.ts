/**
 * The retained exec log: every event of every exec, in the daemon's own
 * in-memory SQLite database (the same one the workspace lives in), so a
 * caller that lost its stream can replay from any seq. Capped per exec at
 * EXEC_LOG_MAX_BYTES of output: past the cap the rows go, `evicted` is set,
 * and replay answers ELOG_TRUNCATED while the live stream carries on.
 */
import type { Database } from "@cloudflare/dofs";

export enum EventKind {
  Stdout = 0,
  Stderr = 1,
  Exit = 2,
}

export interface LogRow {
  seq: number;
  kind: EventKind;
  value: Uint8Array;
}

export interface ExecMeta {
  startedAt: number;
  /** null while the exec runs. */
  exitedAt: number | null;
  exitCode: number | null;
  bytes: number;
  evicted: boolean;
}

/** How long a finished exec's rows are kept, and how often they are swept. */
export const LOG_RETENTION_MS = 5 * 60_000;
export const LOG_SWEEP_INTERVAL_MS = 30_000;

const SCHEMA = `
DROP TABLE IF EXISTS computerd_exec_log;
DROP TABLE IF EXISTS computerd_exec_meta;
CREATE TABLE computerd_exec_meta (
  exec_id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  exited_at INTEGER,
  exit_code INTEGER,
  bytes INTEGER NOT NULL DEFAULT 0,
  evicted INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE computerd_exec_log (
  exec_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY (exec_id, seq)
) WITHOUT ROWID;
`;

export class ExecLog {
  readonly #db: Database;
  readonly #maxBytes: number;

  /** Creates the tables, wiping any earlier log: a restarted daemon has no execs. */
  constructor(db: Database, maxBytes: number) {
    this.#db = db;
    this.#maxBytes = maxBytes;
    db.script(SCHEMA);
  }

  create(id: string, now: number): void {
    this.#db.run("INSERT INTO computerd_exec_meta (exec_id, started_at) VALUES (?, ?)", id, now);
  }

  /** Stores one output event. Returns false once the exec's log has been evicted (nothing is stored). */
  append(id: string, seq: number, kind: EventKind.Stdout | EventKind.Stderr, value: Uint8Array, now: number): boolean {
    const meta = this.meta(id);
    if (meta === undefined || meta.evicted) return false;
    const db = this.#db;
    if (meta.bytes + value.byteLength > this.#maxBytes) {
      db.transaction(() => {
        db.run("DELETE FROM computerd_exec_log WHERE exec_id = ?", id);
        db.run("UPDATE computerd_exec_meta SET evicted = 1, bytes = 0 WHERE exec_id = ?", id);
      });
      return false;
    }
    db.transaction(() => {
      db.run(
        "INSERT INTO computerd_exec_log (exec_id, seq, ts, kind, value) VALUES (?, ?, ?, ?, ?)",
        id,
        seq,
        now,
        kind,
        value,
      );
      db.run("UPDATE computerd_exec_meta SET bytes = bytes + ? WHERE exec_id = ?", value.byteLength, id);
    });
    return true;
  }

  /** Records the exit: a row with the code as int32 LE (unless evicted) and the meta's exit fields. */
  finish(id: string, seq: number, code: number, now: number): void {
    const db = this.#db;
    db.transaction(() => {
      const meta = this.meta(id);
      if (meta === undefined) return;
      if (!meta.evicted) {
        const value = new Uint8Array(4);
        new DataView(value.buffer).setInt32(0, code, true);
        db.run(
          "INSERT INTO computerd_exec_log (exec_id, seq, ts, kind, value) VALUES (?, ?, ?, ?, ?)",
          id,
          seq,
          now,
          EventKind.Exit,
          value,
        );
      }
      db.run("UPDATE computerd_exec_meta SET exited_at = ?, exit_code = ? WHERE exec_id = ?", now, code, id);
    });
  }

  meta(id: string): ExecMeta | undefined {
    const row = this.#db.one<{
      started_at: number;
      exited_at: number | null;
      exit_code: number | null;
      bytes: number;
      evicted: number;
    }>("SELECT started_at, exited_at, exit_code, bytes, evicted FROM computerd_exec_meta WHERE exec_id = ?", id);
    if (row === undefined) return undefined;
    return {
      startedAt: Number(row.started_at),
      exitedAt: row.exited_at === null ? null : Number(row.exited_at),
      exitCode: row.exit_code === null ? null : Number(row.exit_code),
      bytes: Number(row.bytes),
      evicted: Number(row.evicted) === 1,
    };
  }

  /** Events with `seq > after`, in order. */
  read(id: string, after: number): LogRow[] {
    return this.#db
      .all<{ seq: number; kind: number; value: Uint8Array }>(
        "SELECT seq, kind, value FROM computerd_exec_log WHERE exec_id = ? AND seq > ? ORDER BY seq",
        id,
        after,
      )
      .map((row) => ({ seq: Number(row.seq), kind: Number(row.kind) as EventKind, value: row.value }));
  }

  delete(id: string): void {
    const db = this.#db;
    db.transaction(() => {
      db.run("DELETE FROM computerd_exec_log WHERE exec_id = ?", id);
      db.run("DELETE FROM computerd_exec_meta WHERE exec_id = ?", id);
    });
  }

  /** Ids of execs that exited before `cutoff` (the sweep deletes them). */
  expired(cutoff: number): string[] {
    return this.#db
      .all<{ exec_id: string }>(
        "SELECT exec_id FROM computerd_exec_meta WHERE exited_at IS NOT NULL AND exited_at < ?",
        cutoff,
      )
      .map((row) => row.exec_id);
  }

  /** Retained execs and output bytes, for /__computerd/stats. */
  totals(): { execs: number; bytes: number } {
    const row = this.#db.one<{ n: number; b: number | null }>(
      "SELECT count(*) AS n, sum(bytes) AS b FROM computerd_exec_meta",
    );
    return { execs: Number(row?.n ?? 0), bytes: Number(row?.b ?? 0) };
  }
}

export function decodeExitCode(value: Uint8Array): number {
  return new DataView(value.buffer, value.byteOffset, value.byteLength).getInt32(0, true);
}

import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import type { Database, SqlValue } from "./database.js";
import type { SqlCursorLike, SqlStorageLike } from "./storage-database.js";

export interface NodeDatabase extends Database {
  /** Commits an open batch (see NodeDatabaseOptions.commitDelayMs), then closes. */
  close(): void;
  /** Commits the open batch now, if any. */
  flush(): void;
  /**
   * Hands up to `pages` free pages back (`PRAGMA incremental_vacuum`): the
   * file shrinks, so freed space really leaves the store. Answers the pages
   * still free afterwards.
   */
  vacuum(pages: number): number;
  /** Bytes of the database (page_count × page_size) and of its free pages. */
  size(): { bytes: number; freeBytes: number };
}

export interface NodeDatabaseOptions {
  /** SQLite's page cache, in KiB (its default is 2 MiB). */
  cacheKiB?: number;
  /**
   * Batched commits: every transaction (and every write outside one) joins
   * one open SQLite transaction as a savepoint, and that transaction commits
   * this many milliseconds after the write that opened it (or at `flush()` /
   * `close()`). A burst of small transactions then writes each touched page
   * to the rollback journal and the file once, not once per transaction (an
   * unlink on the anonymous store cost ~33 pwrites and an ftruncate alone).
   * Atomicity per transaction is kept (a failing one rolls back to its
   * savepoint); durability is deferred to the commit, so only for a
   * database no other connection reads, and whose writes need not survive a
   * crash of this process unless `flush()` was called after them
   * (computerd's store). An error SQLite answers by
   * rolling back the whole transaction (disk full, I/O error) loses the
   * batch's earlier writes too.
   */
  commitDelayMs?: number;
  /**
   * What a committed transaction of a database file must outlive. `"power"`
   * (default): a power cut (WAL, `synchronous = NORMAL`). `"process"`: only
   * the death of this process (WAL, `synchronous = OFF`): a commit is in the
   * kernel's page cache once it returns, which any kill of the process keeps,
   * and it costs no fsync. For a store whose machine dies with its copy
   * anyway (computerd's store on a container's disk).
   */
  survives?: "power" | "process";
}

/**
 * The Node driver over better-sqlite3. Statements are prepared once per SQL
 * text: preparing dominates the cost of the small queries dofs issues.
 *
 * Every new database has `auto_vacuum = INCREMENTAL`, so `vacuum()` can give
 * freed pages back in bounded steps.
 *
 * @param path a database file; nothing / `":memory:"` for an in-memory one;
 * `""` for an anonymous temporary file (deleted by SQLite when closed or when
 * the process dies), whose pages live in the file and a bounded cache rather
 * than in the process's heap.
 */
export function openNodeDatabase(path = ":memory:", options: NodeDatabaseOptions = {}): NodeDatabase {
  const db = new BetterSqlite3(path);
  // Only takes effect before the first table exists, which is all it needs to.
  db.pragma("auto_vacuum = INCREMENTAL");
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`);
  if (path === "") {
    // An anonymous file dies with the process: nothing to protect from a crash. SQLite refuses WAL
    // for it; its rollback journal stays a temporary file (a memory journal would put a whole
    // transaction's old pages in the heap).
    db.pragma("synchronous = OFF");
  } else {
    db.pragma("journal_mode = WAL");
    db.pragma(options.survives === "process" ? "synchronous = OFF" : "synchronous = NORMAL");
  }
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (query: string): BetterSqlite3.Statement => {
    let statement = statements.get(query);
    if (!statement) {
      statement = db.prepare(query);
      statements.set(query, statement);
    }
    return statement;
  };
  const bind = (params: SqlValue[]): unknown[] =>
    params.map((value) =>
      value instanceof Uint8Array && !Buffer.isBuffer(value)
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : value,
    );
  // Hand-rolled rather than db.transaction(fn)(), which builds a new wrapper per call
  // (measurable on small writes). The outermost level is BEGIN, nested levels savepoints;
  // with batched commits the batch's first transaction is the outermost level and the
  // transactions that join it savepoints.
  let depth = 0;
  let changed = 0;
  const delay = options.commitDelayMs;
  let commitTimer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(commitTimer);
    commitTimer = undefined;
    if (depth === 0 && db.inTransaction) prepare("COMMIT").run();
  };
  const schedule = (): void => {
    commitTimer = setTimeout(flush, delay);
    commitTimer.unref();
  };
  /** A write outside any transaction opens the batch when none is (the timer commits it, off the caller's turn). */
  const join = (): void => {
    if (db.inTransaction) return;
    prepare("BEGIN").run();
    schedule();
  };
  const transaction = <T>(body: () => T): T => {
    if (delay !== undefined && depth === 0 && !db.inTransaction) {
      // The batch's first transaction is its outermost level: it needs no savepoint (whose
      // sub-journal would copy every page it touches), and its failure rolls back nothing else.
      prepare("BEGIN").run();
      depth = 1;
      try {
        const result = body();
        depth = 0;
        schedule();
        return result;
      } catch (error) {
        depth = 0;
        if (db.inTransaction) prepare("ROLLBACK").run();
        throw error;
      }
    }
    const outermost = depth === 0 && delay === undefined;
    const savepoint = `dofs_${depth}`;
    prepare(outermost ? "BEGIN" : `SAVEPOINT ${savepoint}`).run();
    depth += 1;
    try {
      const result = body();
      depth -= 1;
      prepare(outermost ? "COMMIT" : `RELEASE ${savepoint}`).run();
      return result;
    } catch (error) {
      depth -= 1;
      if (outermost) {
        if (db.inTransaction) prepare("ROLLBACK").run();
      } else if (db.inTransaction) {
        // SQLite may have rolled the whole transaction back already (a full disk): nothing left to undo.
        prepare(`ROLLBACK TO ${savepoint}`).run();
        prepare(`RELEASE ${savepoint}`).run();
      }
      throw error;
    }
  };
  const checkedWrites = <T>(body: () => T): T => {
    // Nested, or with no batch open: an ordinary transaction (the batch's first needs no savepoint either).
    if (delay === undefined || depth > 0 || !db.inTransaction) return transaction(body);
    depth = 1;
    try {
      const result = body();
      depth = 0;
      return result;
    } catch (error) {
      depth = 0;
      // Only a storage error gets here (the checks ran before): the batch goes, as SQLite itself may do.
      clearTimeout(commitTimer);
      commitTimer = undefined;
      if (db.inTransaction) prepare("ROLLBACK").run();
      throw error;
    }
  };
  const run = (query: string, params: SqlValue[]): void => {
    // A write outside a transaction joins the batch too, else it would commit the batch with it.
    if (delay !== undefined && depth === 0) join();
    changed = prepare(query).run(...bind(params)).changes;
  };
  const one = <T>(query: string, ...params: SqlValue[]) => prepare(query).get(...bind(params)) as T | undefined;
  // `storage.sql` of a Durable Object, over the same connection: a statement runs when `exec` is
  // called (so a write lands even if the cursor is never read), and its rows are read at once.
  const sql: SqlStorageLike = {
    exec<T extends object>(query: string, ...bindings: unknown[]): SqlCursorLike<T> {
      let rows: T[] = [];
      let statement: BetterSqlite3.Statement | undefined;
      try {
        statement = prepare(query);
      } catch (error) {
        // A script (several statements) runs as one, as a Durable Object's exec does; it takes no bindings.
        if (bindings.length > 0 || !/more than one statement/.test(String(error))) throw error;
        if (delay !== undefined && depth === 0) join();
        db.exec(query);
      }
      if (statement?.reader) rows = statement.all(...bind(bindings as SqlValue[])) as T[];
      else if (statement) run(query, bindings as SqlValue[]);
      return rowCursor(rows);
    },
  };
  return {
    sql,
    get inTransaction() {
      return depth > 0;
    },
    transactionSync: (body) => transaction(body),
    scalar: <T>(query: string, ...params: SqlValue[]) => {
      const row = one<Record<string, unknown>>(query, ...params);
      return row === undefined ? undefined : (Object.values(row)[0] as T);
    },
    all: <T>(query: string, ...params: SqlValue[]) => prepare(query).all(...bind(params)) as T[],
    one,
    run: (query, ...params) => run(query, params),
    changes: () => changed,
    script: (query) => {
      db.exec(query);
    },
    transaction: (body) => transaction(body),
    checkedWrites: (body) => checkedWrites(body),
    sha256: (bytes) => createHash("sha256").update(bytes).digest("hex"),
    flush,
    close: () => {
      flush();
      db.close();
    },
    vacuum: (pages) => {
      db.pragma(`incremental_vacuum(${Math.max(0, Math.floor(pages))})`);
      return Number(db.pragma("freelist_count", { simple: true }));
    },
    size: () => {
      const pageSize = Number(db.pragma("page_size", { simple: true }));
      return {
        bytes: Number(db.pragma("page_count", { simple: true })) * pageSize,
        freeBytes: Number(db.pragma("freelist_count", { simple: true })) * pageSize,
      };
    },
  };
}

/** A cursor over rows already read: `toArray` gives what is left, `next` and iteration consume them. */
function rowCursor<T>(rows: T[]): SqlCursorLike<T & object> {
  let at = 0;
  const next = (): { done: boolean; value?: T & object } =>
    at < rows.length ? { done: false, value: rows[at++] as T & object } : { done: true };
  return {
    toArray: () => {
      const rest = rows.slice(at);
      at = rows.length;
      return rest as (T & object)[];
    },
    next,
    [Symbol.iterator]: () => ({ next: () => next() as IteratorResult<T & object> }),
  };
}

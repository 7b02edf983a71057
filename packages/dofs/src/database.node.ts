import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import type { Database, SqlValue } from "./database.js";

export interface NodeDatabase extends Database {
  close(): void;
  /**
   * Hands up to `pages` free pages back (`PRAGMA incremental_vacuum`): the
   * file shrinks, so freed space really leaves the store. Answers the pages
   * still free afterwards.
   */
  vacuum(pages: number): number;
  /** Bytes of the database (page_count × page_size) and of its free pages. */
  size(): { bytes: number; freeBytes: number };
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
export function openNodeDatabase(path = ":memory:", options: { cacheKiB?: number } = {}): NodeDatabase {
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
    db.pragma("synchronous = NORMAL");
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
  // (measurable on small writes). The outermost level is BEGIN, nested levels savepoints.
  let depth = 0;
  let changed = 0;
  const transaction = <T>(body: () => T): T => {
    const savepoint = `dofs_${depth}`;
    prepare(depth === 0 ? "BEGIN" : `SAVEPOINT ${savepoint}`).run();
    depth += 1;
    try {
      const result = body();
      depth -= 1;
      prepare(depth === 0 ? "COMMIT" : `RELEASE ${savepoint}`).run();
      return result;
    } catch (error) {
      depth -= 1;
      if (depth === 0) {
        if (db.inTransaction) prepare("ROLLBACK").run();
      } else {
        prepare(`ROLLBACK TO ${savepoint}`).run();
        prepare(`RELEASE ${savepoint}`).run();
      }
      throw error;
    }
  };
  return {
    all: <T>(query: string, ...params: SqlValue[]) => prepare(query).all(...bind(params)) as T[],
    one: <T>(query: string, ...params: SqlValue[]) => prepare(query).get(...bind(params)) as T | undefined,
    run: (query, ...params) => {
      changed = prepare(query).run(...bind(params)).changes;
    },
    changes: () => changed,
    script: (query) => {
      db.exec(query);
    },
    transaction: (body) => transaction(body),
    sha256: (bytes) => createHash("sha256").update(bytes).digest("hex"),
    close: () => db.close(),
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

import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import type { Database, SqlValue } from "./database.js";

/**
 * The Node driver over better-sqlite3. Statements are prepared once per SQL
 * text: preparing dominates the cost of the small queries dofs issues.
 *
 * @param path a database file, or nothing / `":memory:"` for an in-memory one.
 */
export function openNodeDatabase(path = ":memory:"): Database & { close(): void } {
  const db = new BetterSqlite3(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
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
  };
}

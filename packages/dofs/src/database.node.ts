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
  db.pragma("foreign_keys = ON");
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
  return {
    all: <T>(query: string, ...params: SqlValue[]) => prepare(query).all(...bind(params)) as T[],
    one: <T>(query: string, ...params: SqlValue[]) => prepare(query).get(...bind(params)) as T | undefined,
    run: (query, ...params) => prepare(query).run(...bind(params)).changes,
    script: (query) => {
      db.exec(query);
    },
    transaction: (body) => db.transaction(body)(),
    close: () => db.close(),
  };
}

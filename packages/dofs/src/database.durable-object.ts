import type { Database, Row, SqlValue } from "./database.js";

/**
 * The slice of `DurableObjectStorage` this driver uses, spelled out so dofs'
 * public types do not depend on `@cloudflare/workers-types`.
 */
export interface DurableObjectSqlStorage {
  sql: {
    exec(query: string, ...bindings: unknown[]): DurableObjectSqlCursor;
  };
  transactionSync<T>(body: () => T): T;
}

export interface DurableObjectSqlCursor {
  next(): { done?: boolean; value?: Record<string, unknown> };
  [Symbol.iterator](): Iterator<Record<string, unknown>>;
}

/**
 * The Durable Object driver: `ctx.storage.sql` for statements and
 * `ctx.storage.transactionSync` for atomicity. workerd runs a nested
 * `transactionSync` as a savepoint, which is the nesting `Database` promises.
 */
export function openDurableObjectDatabase(storage: DurableObjectSqlStorage): Database {
  const { sql } = storage;
  return {
    all<T>(query: string, ...params: SqlValue[]): T[] {
      const out: T[] = [];
      for (const row of sql.exec(query, ...params)) out.push(withBytes(row) as T);
      return out;
    },
    one<T>(query: string, ...params: SqlValue[]): T | undefined {
      const next = sql.exec(query, ...params).next();
      return next.done || next.value === undefined ? undefined : (withBytes(next.value) as T);
    },
    run(query, ...params) {
      // Drain so the statement runs to completion.
      for (const _ of sql.exec(query, ...params));
    },
    // Not the cursor's `rowsWritten`: that also counts index rows.
    changes: () => Number(sql.exec("SELECT changes() AS n").next().value?.n ?? 0),
    script(query) {
      sql.exec(query);
    },
    transaction: (body) => storage.transactionSync(body),
  };
}

/** DO SQLite hands BLOB columns back as ArrayBuffer; the rest of dofs expects Uint8Array. */
function withBytes(row: Record<string, unknown>): Row {
  for (const key in row) {
    const value = row[key];
    if (value instanceof ArrayBuffer) row[key] = new Uint8Array(value);
  }
  return row as Row;
}

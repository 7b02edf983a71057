import BetterSqlite3 from "better-sqlite3";
import type { DurableObjectStorageLike, SqlCursorLike, SqlStorageLike } from "../storage-database.js";

/** A cursor as a Durable Object's `sql.exec` returns it: rows once, by iteration, `next()` or `toArray()`. */
export interface TestSqlCursor<T extends object = Record<string, unknown>> extends SqlCursorLike<T>, Iterable<T> {
  next(): { done: boolean; value?: T };
  [Symbol.iterator](): Iterator<T>;
  /** The only row; throws unless there is exactly one (as `SqlStorageCursor.one()`). */
  one(): T;
}

/**
 * A Durable Object's storage, played by better-sqlite3 in Node: `sql.exec`
 * (several `;`-separated statements when there are no bindings; BLOBs come
 * back as `ArrayBuffer`, as in workerd) and `transactionSync` (nested calls
 * are savepoints). Hand it to `new Database(storage)`, to a `Workspace`, or
 * wrap it in a `RecordingStorage`. `":memory:"` by default; `close()` when done.
 */
export class SQLiteTestStorage implements DurableObjectStorageLike {
  readonly sql: SqlStorageLike;
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  #depth = 0;

  constructor(path = ":memory:") {
    this.#db = new BetterSqlite3(path);
    this.sql = { exec: <T extends object>(query: string, ...bindings: unknown[]) => this.#exec<T>(query, bindings) };
  }

  transactionSync<T>(closure: () => T): T {
    const outermost = this.#depth === 0;
    const savepoint = `test_storage_${this.#depth}`;
    this.#db.exec(outermost ? "BEGIN" : `SAVEPOINT ${savepoint}`);
    this.#depth += 1;
    try {
      const result = closure();
      this.#db.exec(outermost ? "COMMIT" : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
      if (this.#db.inTransaction)
        this.#db.exec(outermost ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      throw error;
    } finally {
      this.#depth -= 1;
    }
  }

  /** Bytes of the database file (page_count × page_size), as `sql.databaseSize` is on a Durable Object. */
  get databaseSize(): number {
    return (
      Number(this.#db.pragma("page_count", { simple: true })) * Number(this.#db.pragma("page_size", { simple: true }))
    );
  }

  close(): void {
    this.#db.close();
  }

  #exec<T extends object>(query: string, bindings: unknown[]): TestSqlCursor<T> {
    let statement = this.#statements.get(query);
    if (statement === undefined) {
      try {
        statement = this.#db.prepare(query);
      } catch (error) {
        // A script of several statements runs as one, like a Durable Object's exec without bindings.
        if (bindings.length > 0 || !/more than one statement/i.test(String(error))) throw error;
        this.#db.exec(query);
        return cursorOf<T>([]);
      }
      this.#statements.set(query, statement);
    }
    const values = bindings.map(toSqlite);
    if (!statement.reader) {
      statement.run(...values);
      return cursorOf<T>([]);
    }
    return cursorOf<T>(statement.all(...values).map((row) => withArrayBuffers(row as Record<string, unknown>) as T));
  }
}

function toSqlite(value: unknown): unknown {
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}

/** workerd returns BLOB columns as ArrayBuffer; better-sqlite3 as Buffer. */
function withArrayBuffers(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (Buffer.isBuffer(value)) row[key] = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  }
  return row;
}

function cursorOf<T extends object>(rows: T[]): TestSqlCursor<T> {
  let next = 0;
  const cursor: TestSqlCursor<T> = {
    next: () => (next < rows.length ? { done: false, value: rows[next++] as T } : { done: true }),
    toArray: () => {
      const rest = rows.slice(next);
      next = rows.length;
      return rest;
    },
    one: () => {
      if (rows.length !== 1) throw new Error(`Expected exactly one result from SQL query, but got ${rows.length}.`);
      next = rows.length;
      return rows[0] as T;
    },
    [Symbol.iterator]: () => ({ next: () => cursor.next() as IteratorResult<T> }),
  };
  return cursor;
}

import type { Database, Row, SqlValue } from "./database.js";

/** A cursor of `sql.exec`: the original's storage shape needs only `toArray`; a Durable Object's also iterates. */
export interface SqlCursorLike<T extends object = Record<string, unknown>> {
  toArray(): T[];
  next?(): { done?: boolean; value?: T };
  [Symbol.iterator]?(): Iterator<T>;
}

export interface SqlStorageLike {
  exec<T extends object = Record<string, unknown>>(query: string, ...bindings: unknown[]): SqlCursorLike<T>;
}

/**
 * What a Workspace or `new Database(storage)` needs of its storage: a
 * Durable Object's `ctx.storage`, or anything shaped like it (the test
 * storages of `@cloudflare/dofs/testing`). `transactionSync` is used when
 * present; otherwise a synchronous `transaction`; otherwise SQL savepoints
 * through `sql.exec` (a Durable Object refuses those, but always has
 * `transactionSync`). The original's name for this shape.
 */
export interface DurableObjectStorageLike {
  sql: SqlStorageLike;
  transaction?<T>(closure: () => T | Promise<T>): T | Promise<T>;
  transactionSync?<T>(closure: () => T): T;
}

/**
 * The slice of `DurableObjectStorage` the driver uses when it is a real
 * Durable Object, spelled out so dofs' public types do not depend on
 * `@cloudflare/workers-types`.
 */
export interface DurableObjectSqlStorage {
  sql: {
    exec(query: string, ...bindings: unknown[]): DurableObjectSqlCursor;
  };
  transactionSync<T>(body: () => T): T;
}

export interface DurableObjectSqlCursor {
  toArray?(): Record<string, unknown>[];
  next(): { done?: boolean; value?: Record<string, unknown> };
  [Symbol.iterator](): Iterator<Record<string, unknown>>;
}

/**
 * `Database` over a Durable Object's storage (or any `DurableObjectStorageLike`):
 * `sql.exec` for statements and the storage's own transactions for
 * atomicity. workerd runs a nested `transactionSync` as a savepoint, which
 * is the nesting `Database` promises. Besides `Database`, it has the
 * original's members (`sql`, `transactionSync`, `inTransaction`, `scalar`).
 */
export class StorageDatabase implements Database {
  readonly sql: SqlStorageLike;
  /** The same as `transaction`, under the original's name. */
  readonly transactionSync: <T>(body: () => T) => T;
  readonly #storage: DurableObjectStorageLike;
  #depth = 0;

  constructor(storage: DurableObjectStorageLike) {
    if (typeof storage?.sql?.exec !== "function") {
      throw new TypeError("Database needs a storage with sql.exec (a Durable Object's ctx.storage)");
    }
    this.#storage = storage;
    this.sql = storage.sql;
    this.transactionSync = (body) => this.transaction(body);
    // Own, bound methods: a Database has always been a plain object of functions (the Node driver's
    // still is), so `{ ...db }` and `const { all } = db` must keep working.
    const self = this as unknown as Record<string, unknown>;
    for (const name of ["all", "one", "run", "scalar", "changes", "script", "transaction"] as const) {
      self[name] = (this[name] as (...args: unknown[]) => unknown).bind(this);
    }
  }

  /** True while a `transaction` body runs. */
  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  all<T = Row>(query: string, ...params: SqlValue[]): T[] {
    const cursor = this.sql.exec(query, ...params);
    if (typeof cursor[Symbol.iterator] !== "function") return cursor.toArray().map((row) => withBytes(row) as T);
    const out: T[] = [];
    for (const row of cursor as Iterable<Record<string, unknown>>) out.push(withBytes(row) as T);
    return out;
  }

  one<T = Row>(query: string, ...params: SqlValue[]): T | undefined {
    const cursor = this.sql.exec(query, ...params);
    if (typeof cursor.next !== "function") {
      const [row] = cursor.toArray();
      return row === undefined ? undefined : (withBytes(row) as T);
    }
    const next = cursor.next();
    return next.done || next.value === undefined ? undefined : (withBytes(next.value) as T);
  }

  run(query: string, ...params: SqlValue[]): void {
    drain(this.sql.exec(query, ...params));
  }

  /** The first column of the first row, or undefined (the original's `scalar`). */
  scalar<T>(query: string, ...params: SqlValue[]): T | undefined {
    const row = this.one<Record<string, unknown>>(query, ...params);
    return row === undefined ? undefined : (Object.values(row)[0] as T);
  }

  // Not the cursor's `rowsWritten`: that also counts index rows.
  changes(): number {
    return Number(this.one<{ n: number }>("SELECT changes() AS n")?.n ?? 0);
  }

  script(query: string): void {
    drain(this.sql.exec(query));
  }

  transaction<T>(body: () => T): T {
    const storage = this.#storage;
    this.#depth += 1;
    try {
      if (storage.transactionSync) return storage.transactionSync(body);
      if (storage.transaction) {
        const result = storage.transaction(body);
        if (isPromiseLike(result)) throw new TypeError("Database needs a storage whose transactions are synchronous");
        return result;
      }
      return this.#savepoint(body);
    } finally {
      this.#depth -= 1;
    }
  }

  /** Atomicity from SQL itself, for a storage without transactions of its own. */
  #savepoint<T>(body: () => T): T {
    const name = `dofs_tx_${this.#depth}`;
    this.run(`SAVEPOINT ${name}`);
    try {
      const result = body();
      this.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.run(`ROLLBACK TO ${name}`);
      this.run(`RELEASE ${name}`);
      throw error;
    }
  }
}

/** The Durable Object driver: `new StorageDatabase(storage)`, the name older code uses. */
export function openDurableObjectDatabase(
  storage: DurableObjectStorageLike | DurableObjectSqlStorage,
): StorageDatabase {
  return new StorageDatabase(storage as DurableObjectStorageLike);
}

/** Reads a cursor to its end, so the statement has run whether the storage executes eagerly or on read. */
function drain(cursor: SqlCursorLike): void {
  if (typeof cursor[Symbol.iterator] === "function") for (const _ of cursor as Iterable<unknown>);
  else cursor.toArray();
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/** DO SQLite hands BLOB columns back as ArrayBuffer; the rest of dofs expects Uint8Array. */
function withBytes(row: Record<string, unknown>): Row {
  for (const key in row) {
    const value = row[key];
    if (value instanceof ArrayBuffer) row[key] = new Uint8Array(value);
  }
  return row as Row;
}

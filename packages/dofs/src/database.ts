/**
 * The one seam between dofs and a SQLite engine. Two drivers implement it:
 * Durable Object storage (`new Database(ctx.storage)`, also spelled
 * `openDurableObjectDatabase`) and better-sqlite3 (`openNodeDatabase` from
 * `@cloudflare/dofs/node`).
 *
 * Everything is synchronous on purpose: both engines are, and a Durable
 * Object's `transactionSync` only accepts a synchronous body.
 */

import { type DurableObjectStorageLike, type SqlStorageLike, StorageDatabase } from "./storage-database.js";

export type SqlValue = string | number | bigint | null | Uint8Array;
export type Row = Record<string, SqlValue>;

export interface Database {
  /** All result rows. BLOB columns come back as `Uint8Array`. */
  all<T = Row>(sql: string, ...params: SqlValue[]): T[];
  /** The first row, or undefined. */
  one<T = Row>(sql: string, ...params: SqlValue[]): T | undefined;
  /** Runs a statement. */
  run(sql: string, ...params: SqlValue[]): void;
  /**
   * Rows changed by the last `run` (SQLite's `changes()`). Separate from
   * `run` because on a Durable Object it costs a statement of its own, and
   * almost no caller needs it.
   */
  changes(): number;
  /** Runs a script of several `;`-separated statements without parameters. */
  script(sql: string): void;
  /**
   * Runs `body` atomically. Nested calls become savepoints, so an inner
   * failure that the outer body catches rolls back only the inner work.
   */
  transaction<T>(body: () => T): T;
  /**
   * Optional: runs `body`, writes whose checks were all made before it (so it
   * fails only on a storage error: a full disk, an I/O error), atomically
   * with the batch of commits it joins and without a savepoint of its own
   * (whose sub-journal copies every page the body touches). An error rolls
   * back the whole open batch. Nested in a transaction it is one (a
   * savepoint). Drivers without it: callers use `transaction`.
   */
  checkedWrites?<T>(body: () => T): T;
  /**
   * The original's members, which code written for it reaches through
   * `provider.db` or a backend host's `db`:
   *
   * `sql.exec(query, ...bindings)` runs one statement (or, without bindings,
   * a `;`-separated script) and answers a cursor of its rows, as a Durable
   * Object's `storage.sql` does. It bypasses dofs: writes through it are
   * neither in the change log nor synced.
   */
  readonly sql: SqlStorageLike;
  /** `transaction` under the original's name (a property, so it can be passed around unbound). */
  readonly transactionSync: <T>(body: () => T) => T;
  /** True while a `transaction` (or `transactionSync`) body runs. */
  readonly inTransaction: boolean;
  /** The first column of the first row, or undefined when there is no row. */
  scalar<T>(sql: string, ...params: SqlValue[]): T | undefined;
  /** Optional synchronous SHA-256 (lowercase hex) when the platform has a faster one than Web Crypto. */
  sha256?(bytes: Uint8Array): string;
}

/**
 * `new Database(storage)`: a `Database` over a Durable Object's storage or
 * anything shaped like it (as in the original). `Database` stays the
 * interface every driver implements; the value only constructs the storage
 * driver.
 */
export const Database: new (storage: DurableObjectStorageLike) => StorageDatabase = StorageDatabase;

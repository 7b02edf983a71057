import type { DurableObjectStorageLike, SqlCursorLike, SqlStorageLike } from "../storage-database.js";

export interface RecordedStatement {
  query: string;
  bindings: unknown[];
}

/**
 * A storage that passes everything to `inner` and writes down each SQL
 * statement and transaction, so a test can check what an operation costs
 * (statements per write, no writes for a read) or that it ran atomically.
 * Runtime-neutral: wraps a `SQLiteTestStorage` in Node or `ctx.storage` in a
 * Durable Object.
 */
export class RecordingStorage implements DurableObjectStorageLike {
  readonly sql: SqlStorageLike;
  /** Every statement, in order. */
  readonly statements: RecordedStatement[] = [];
  /** Present when `inner` has it; counts each outermost and nested call. */
  readonly transactionSync?: <T>(closure: () => T) => T;
  #transactions = 0;

  constructor(readonly inner: DurableObjectStorageLike) {
    this.sql = {
      exec: <T extends object>(query: string, ...bindings: unknown[]): SqlCursorLike<T> => {
        this.statements.push({ query, bindings });
        return inner.sql.exec<T>(query, ...bindings);
      },
    };
    const sync = inner.transactionSync?.bind(inner);
    if (sync) {
      this.transactionSync = <T>(closure: () => T): T => {
        this.#transactions += 1;
        return sync(closure);
      };
    }
  }

  /** `transactionSync` calls so far. */
  get transactions(): number {
    return this.#transactions;
  }

  /** Statements whose SQL matches `pattern` (a RegExp, or a case-insensitive leading keyword such as "INSERT"). */
  count(pattern: RegExp | string): number {
    const test =
      typeof pattern === "string"
        ? (query: string) => query.trimStart().toUpperCase().startsWith(pattern.toUpperCase())
        : (query: string) => pattern.test(query);
    return this.statements.filter((statement) => test(statement.query)).length;
  }

  /** Forgets what was recorded (the schema setup, say) before the part a test measures. */
  clear(): void {
    this.statements.length = 0;
    this.#transactions = 0;
  }
}

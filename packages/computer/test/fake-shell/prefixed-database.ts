/**
 * A dofs `Database` whose tables live under a name prefix, so a second dofs
 * store can share one SQLite file: a Durable Object cannot open another
 * database, and the test backend's peer store (the "container side") needs
 * tables of its own next to the workspace's.
 */
import type { Database, Row, SqlStorageLike, SqlValue } from "@cloudflare/dofs";

/**
 * Every dofs table and index name contains `vfs_` (`vfs_nodes`,
 * `_vfs_watermark`, `vfs_nodes_rev`, …) and no dofs statement carries `vfs_`
 * in a value, so rewriting the text is enough. The `_vfs_*` tables become
 * `_<prefix>vfs_*`; `dropPrefixedTables` knows both forms.
 */
const MARKER = "vfs_";

/** dofs issues a fixed set of statements; the cap only guards against a caller building SQL per call. */
const CACHE_LIMIT = 1024;

class PrefixedDatabase implements Database {
  readonly sha256?: (bytes: Uint8Array) => string;
  readonly #db: Database;
  readonly #replacement: string;
  readonly #rewritten = new Map<string, string>();

  constructor(db: Database, prefix: string) {
    this.#db = db;
    this.#replacement = `${prefix}${MARKER}`;
    const sha256 = db.sha256;
    if (sha256 !== undefined) this.sha256 = (bytes) => sha256.call(db, bytes);
  }

  all<T = Row>(sql: string, ...params: SqlValue[]): T[] {
    return this.#db.all<T>(this.#rewrite(sql), ...params);
  }

  one<T = Row>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.#db.one<T>(this.#rewrite(sql), ...params);
  }

  run(sql: string, ...params: SqlValue[]): void {
    this.#db.run(this.#rewrite(sql), ...params);
  }

  /** Statements through `sql` are rewritten too, so they see the prefixed tables. */
  get sql(): SqlStorageLike {
    return { exec: (query, ...bindings) => this.#db.sql.exec(this.#rewrite(query), ...bindings) };
  }

  readonly transactionSync = <T>(body: () => T): T => this.#db.transaction(body);

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  scalar<T>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.#db.scalar<T>(this.#rewrite(sql), ...params);
  }

  changes(): number {
    return this.#db.changes();
  }

  script(sql: string): void {
    this.#db.script(this.#rewrite(sql));
  }

  transaction<T>(body: () => T): T {
    return this.#db.transaction(body);
  }

  #rewrite(sql: string): string {
    let out = this.#rewritten.get(sql);
    if (out === undefined) {
      out = sql.replaceAll(MARKER, this.#replacement);
      if (this.#rewritten.size >= CACHE_LIMIT) this.#rewritten.clear();
      this.#rewritten.set(sql, out);
    }
    return out;
  }
}

/**
 * Wraps `db` so dofs' tables are `<prefix>vfs_*`. The prefix must be a plain
 * identifier fragment (letters, digits, `_`) because it is spliced into SQL.
 * Each call returns a new object, and dofs keys its "schema is ready" memo by
 * object, so a wrapper made after `dropPrefixedTables` recreates the schema.
 */
export function prefixedDatabase(db: Database, prefix: string): Database {
  checkPrefix(prefix);
  return new PrefixedDatabase(db, prefix);
}

/** Names of the tables a `prefixedDatabase(db, prefix)` created. */
export function prefixedTables(db: Database, prefix: string): string[] {
  checkPrefix(prefix);
  // `_` is a LIKE wildcard, hence the escapes; both `<prefix>vfs_x` and `_<prefix>vfs_x`.
  const pattern = `${prefix}${MARKER}`.replaceAll("_", "\\_");
  return db
    .all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')",
      `${pattern}%`,
      `\\_${pattern}%`,
    )
    .map((row) => String(row.name));
}

/** Drops a prefixed store's tables (their indexes go with them): the store is empty again. */
export function dropPrefixedTables(db: Database, prefix: string): void {
  const tables = prefixedTables(db, prefix);
  if (tables.length === 0) return;
  db.transaction(() => {
    // Blob bytes reference blobs ON DELETE CASCADE, so the order is safe even with foreign keys enforced (DO SQLite).
    for (const name of tables) db.run(`DROP TABLE IF EXISTS "${name}"`);
  });
}

function checkPrefix(prefix: string): void {
  if (!/^[A-Za-z0-9_]+$/.test(prefix)) throw new TypeError(`table prefix must match [A-Za-z0-9_]+, got ${prefix}`);
}

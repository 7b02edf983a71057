import {
  type Database,
  type DurableObjectSqlStorage,
  type DurableObjectStorageLike,
  openDurableObjectDatabase,
} from "@cloudflare/dofs";

/**
 * A Durable Object's `ctx.storage` or anything shaped like it (the original's
 * `DurableObjectStorageLike`, e.g. `@cloudflare/dofs/testing`'s
 * `SQLiteTestStorage`), or any dofs `Database` (tests, Node hosts).
 */
export type WorkspaceStorage = DurableObjectSqlStorage | DurableObjectStorageLike | Database;

export function toDatabase(storage: WorkspaceStorage): Database {
  // A dofs Database first: the storage driver's Database also has `sql`.
  if ("all" in storage && "transaction" in storage) return storage;
  if ("sql" in storage && typeof storage.sql?.exec === "function") return openDurableObjectDatabase(storage);
  throw new TypeError("storage must be a Durable Object's ctx.storage or a dofs Database");
}

import { type Database, type DurableObjectSqlStorage, openDurableObjectDatabase } from "@cloudflare/dofs";

/** A Durable Object's `ctx.storage`, or any dofs `Database` (tests, Node hosts). */
export type WorkspaceStorage = DurableObjectSqlStorage | Database;

export function toDatabase(storage: WorkspaceStorage): Database {
  if ("sql" in storage && "transactionSync" in storage) return openDurableObjectDatabase(storage);
  if ("all" in storage && "transaction" in storage) return storage;
  throw new TypeError("storage must be a Durable Object's ctx.storage or a dofs Database");
}

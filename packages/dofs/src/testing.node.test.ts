/**
 * `@cloudflare/dofs/testing` and `new Database(storage)`: the storage shapes
 * the original accepts (a Durable Object's, or one with only
 * `sql.exec().toArray()`), each under the real filesystem.
 */
import { describe, expect, it } from "vitest";
import { WorkspaceFilesystem } from "./filesystem.js";
import { Database, type DurableObjectStorageLike } from "./index.js";
import { currentRev, initializeSchema } from "./schema.js";
import { RecordingStorage, SQLiteTestStorage } from "./testing.node.js";

/** The narrowest storage the original types allow: `sql.exec` whose cursor has only `toArray`. */
function toArrayOnly(inner: SQLiteTestStorage): DurableObjectStorageLike {
  return {
    sql: {
      exec: <T extends object>(query: string, ...bindings: unknown[]) => ({
        toArray: () => inner.sql.exec<T>(query, ...bindings).toArray(),
      }),
    },
  };
}

describe("new Database(storage)", () => {
  for (const [name, make] of [
    ["SQLiteTestStorage (transactionSync)", () => new SQLiteTestStorage()],
    ["a storage with only sql.exec().toArray() (savepoints)", () => toArrayOnly(new SQLiteTestStorage())],
  ] as const) {
    it(`${name}: files round-trip, BLOBs come back as bytes, a failed transaction leaves nothing`, async () => {
      const db = new Database(make());
      expect(db).toBeInstanceOf(Database);
      const fs = new WorkspaceFilesystem(db);
      await fs.mkdir("/workspace");
      await fs.writeFile("/workspace/a.bin", new Uint8Array([0, 1, 2, 255]));
      expect(
        Array.from(new Uint8Array(await new Response(await fs.readFile("/workspace/a.bin")).arrayBuffer())),
      ).toEqual([0, 1, 2, 255]);
      const rev = currentRev(db);
      expect(() =>
        db.transaction(() => {
          db.run("UPDATE vfs_meta SET v = v + 1 WHERE k = 'rev'");
          db.transaction(() => db.run("UPDATE vfs_meta SET v = v + 1 WHERE k = 'rev'"));
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(currentRev(db)).toBe(rev);
      // A nested failure the outer body catches undoes only the inner work.
      db.transaction(() => {
        db.run("UPDATE vfs_meta SET v = v + 1 WHERE k = 'rev'");
        try {
          db.transaction(() => {
            db.run("UPDATE vfs_meta SET v = v + 100 WHERE k = 'rev'");
            throw new Error("inner");
          });
        } catch {}
      });
      expect(currentRev(db)).toBe(rev + 1);
      expect(db.inTransaction).toBe(false);
      expect(db.scalar<number>("SELECT v FROM vfs_meta WHERE k = 'rev'")).toBe(rev + 1);
    });
  }

  it("refuses something that is not a storage, and a storage whose transactions are async", () => {
    expect(() => new Database({} as never)).toThrow(/sql\.exec/);
    const inner = new SQLiteTestStorage();
    const async = new Database({ sql: inner.sql, transaction: async (f) => f() });
    expect(() => async.transaction(() => 1)).toThrow(/synchronous/);
  });

  it("initializeSchema seeds rev 1 and the root once; a second call changes nothing", () => {
    const db = new Database(new SQLiteTestStorage());
    initializeSchema(db);
    expect(currentRev(db)).toBe(1);
    initializeSchema(db, 5);
    expect(currentRev(db)).toBe(1);
    expect(db.scalar<number>("SELECT count(*) FROM vfs_nodes")).toBe(1);
  });
});

describe("RecordingStorage", () => {
  it("records every statement and transaction; a read writes nothing", async () => {
    const storage = new RecordingStorage(new SQLiteTestStorage());
    const fs = new WorkspaceFilesystem(new Database(storage));
    await fs.writeFile("/f", "hello");
    expect(storage.count("INSERT")).toBeGreaterThan(0);
    expect(storage.transactions).toBeGreaterThan(0);
    storage.clear();
    expect(await fs.readFile("/f", "utf8")).toBe("hello");
    expect(storage.statements.length).toBeGreaterThan(0);
    expect(storage.count(/^\s*(INSERT|UPDATE|DELETE|REPLACE)/i)).toBe(0);
    expect(storage.transactions).toBe(0);
  });

  it("has no transactionSync when the storage it wraps has none", () => {
    expect(new RecordingStorage(toArrayOnly(new SQLiteTestStorage())).transactionSync).toBeUndefined();
  });
});

describe("SQLiteTestStorage", () => {
  it("answers like a Durable Object: ArrayBuffer BLOBs, scripts without bindings, one()", () => {
    const storage = new SQLiteTestStorage();
    storage.sql.exec("CREATE TABLE t (b BLOB); CREATE TABLE u (x)");
    storage.sql.exec("INSERT INTO t VALUES (?)", new Uint8Array([7, 8]));
    const [row] = storage.sql.exec<{ b: ArrayBuffer }>("SELECT b FROM t").toArray();
    expect(row?.b).toBeInstanceOf(ArrayBuffer);
    expect(Array.from(new Uint8Array(row?.b as ArrayBuffer))).toEqual([7, 8]);
    expect(() => storage.sql.exec("SELECT 1; SELECT 2", 1)).toThrow();
    expect(storage.databaseSize).toBeGreaterThan(0);
    storage.close();
  });
});

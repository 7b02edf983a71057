/**
 * The `Database` contract, run against both drivers: better-sqlite3 in the
 * `dofs:node` project and a Durable Object's SQLite in `dofs:workerd`.
 */

import { describe, expect, it } from "vitest";
import { withDb } from "#harness";
import type { Database } from "./database.js";

const createNotes = (db: Database): void => {
  db.script(`
    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, data BLOB);
    CREATE INDEX notes_body ON notes (body);
  `);
};

const bodies = (db: Database): string[] =>
  db.all<{ body: string }>("SELECT body FROM notes ORDER BY id").map((row) => row.body);

describe("Database", () => {
  it("runs a multi-statement script, then statements with parameters", () =>
    withDb(({ db }) => {
      createNotes(db);
      db.run("INSERT INTO notes (body) VALUES (?), (?)", "a", "b");
      expect(db.changes()).toBe(2);
      db.run("UPDATE notes SET body = body || ? WHERE id > ?", "!", 0);
      expect(db.changes()).toBe(2);
      db.run("DELETE FROM notes WHERE body = ?", "nope");
      expect(db.changes()).toBe(0);
      expect(db.all("SELECT id, body FROM notes ORDER BY id")).toEqual([
        { id: 1, body: "a!" },
        { id: 2, body: "b!" },
      ]);
      expect(db.one("SELECT body FROM notes WHERE id = ?", 2)).toEqual({ body: "b!" });
      expect(db.one("SELECT body FROM notes WHERE id = ?", 99)).toBeUndefined();
      expect(db.all("SELECT body FROM notes WHERE id = ?", 99)).toEqual([]);
    }));

  it("round-trips integers, reals, text, null and large integers", () =>
    withDb(({ db }) => {
      const row = db.one("SELECT ? AS i, ? AS r, ? AS t, ? AS n, ? AS big", 42, 1.5, "héllo ✓", null, 2 ** 40);
      expect(row).toEqual({ i: 42, r: 1.5, t: "héllo ✓", n: null, big: 2 ** 40 });
    }));

  it("round-trips a BLOB as a Uint8Array, including a view with an offset", () =>
    withDb(({ db }) => {
      createNotes(db);
      const bytes = new Uint8Array(1024).map((_, i) => (i * 7) % 256);
      db.run("INSERT INTO notes (body, data) VALUES (?, ?)", "whole", bytes);
      // A view into a larger buffer: only its own bytes must be stored.
      db.run("INSERT INTO notes (body, data) VALUES (?, ?)", "view", bytes.subarray(10, 20));
      db.run("INSERT INTO notes (body, data) VALUES (?, ?)", "empty", new Uint8Array(0));

      const read = (body: string): Uint8Array => {
        const data = db.one<{ data: Uint8Array }>("SELECT data FROM notes WHERE body = ?", body)?.data;
        expect(data).toBeInstanceOf(Uint8Array);
        return data as Uint8Array;
      };
      expect([...read("whole")]).toEqual([...bytes]);
      expect([...read("view")]).toEqual([...bytes.subarray(10, 20)]);
      expect(read("empty").byteLength).toBe(0);
      expect(db.one("SELECT length(data) AS n FROM notes WHERE body = ?", "whole")).toEqual({ n: 1024 });
    }));

  it("commits a transaction and returns its value", () =>
    withDb(({ db }) => {
      createNotes(db);
      const id = db.transaction(() => {
        db.run("INSERT INTO notes (body) VALUES (?)", "kept");
        return db.one<{ id: number }>("SELECT last_insert_rowid() AS id")?.id;
      });
      expect(id).toBe(1);
      expect(bodies(db)).toEqual(["kept"]);
    }));

  it("rolls a transaction back when its body throws, and rethrows", () =>
    withDb(({ db }) => {
      createNotes(db);
      db.run("INSERT INTO notes (body) VALUES (?)", "before");
      expect(() =>
        db.transaction(() => {
          db.run("INSERT INTO notes (body) VALUES (?)", "lost");
          db.run("UPDATE notes SET body = ? WHERE body = ?", "changed", "before");
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(bodies(db)).toEqual(["before"]);
    }));

  it("commits nested transactions together", () =>
    withDb(({ db }) => {
      createNotes(db);
      db.transaction(() => {
        db.run("INSERT INTO notes (body) VALUES (?)", "outer");
        db.transaction(() => {
          db.run("INSERT INTO notes (body) VALUES (?)", "inner");
        });
      });
      expect(bodies(db)).toEqual(["outer", "inner"]);
    }));

  it("rolls back only the inner transaction when the outer body catches its failure", () =>
    withDb(({ db }) => {
      createNotes(db);
      db.transaction(() => {
        db.run("INSERT INTO notes (body) VALUES (?)", "outer-before");
        try {
          db.transaction(() => {
            db.run("INSERT INTO notes (body) VALUES (?)", "inner");
            throw new Error("inner failed");
          });
        } catch (error) {
          expect((error as Error).message).toBe("inner failed");
        }
        db.run("INSERT INTO notes (body) VALUES (?)", "outer-after");
      });
      expect(bodies(db)).toEqual(["outer-before", "outer-after"]);
    }));

  it("rolls back everything, inner work included, when the outer body throws", () =>
    withDb(({ db }) => {
      createNotes(db);
      expect(() =>
        db.transaction(() => {
          db.transaction(() => {
            db.run("INSERT INTO notes (body) VALUES (?)", "inner");
          });
          throw new Error("outer failed");
        }),
      ).toThrow("outer failed");
      expect(bodies(db)).toEqual([]);
    }));

  describe("the original's members", () => {
    it("sql.exec runs a script, then statements with bindings, and answers a cursor of rows", () =>
      withDb(({ db }) => {
        db.sql.exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER); CREATE INDEX kv_v ON kv (v)");
        // A write lands when exec is called, whether or not its cursor is read.
        db.sql.exec("INSERT INTO kv (k, v) VALUES (?, ?), (?, ?)", "a", 1, "b", 2);
        expect(db.sql.exec("SELECT k, v FROM kv ORDER BY k").toArray()).toEqual([
          { k: "a", v: 1 },
          { k: "b", v: 2 },
        ]);
        expect(db.sql.exec("SELECT v FROM kv WHERE k = ?", "zz").toArray()).toEqual([]);
        // The same connection as the dofs methods: each sees the other's writes.
        db.run("INSERT INTO kv (k, v) VALUES (?, ?)", "c", 3);
        const cursor = db.sql.exec<{ k: string }>("SELECT k FROM kv ORDER BY k");
        expect([...(cursor as Iterable<{ k: string }>)].map((row) => row.k)).toEqual(["a", "b", "c"]);
        expect(() => db.sql.exec("SELECT nope FROM kv")).toThrow(/no such column/);
      }));

    it("scalar answers the first column of the first row, or undefined", () =>
      withDb(({ db }) => {
        createNotes(db);
        expect(db.scalar<number>("SELECT count(*) FROM notes")).toBe(0);
        db.run("INSERT INTO notes (body) VALUES (?), (?)", "x", "y");
        expect(db.scalar<number>("SELECT count(*) AS n, 'second' FROM notes")).toBe(2);
        expect(db.scalar<string>("SELECT body FROM notes WHERE id = ?", 2)).toBe("y");
        expect(db.scalar("SELECT body FROM notes WHERE id = ?", 99)).toBeUndefined();
        expect(db.scalar("SELECT data FROM notes WHERE id = 1")).toBeNull();
      }));

    it("transactionSync is transaction, unbound too, and inTransaction says when a body runs", () =>
      withDb(({ db }) => {
        createNotes(db);
        const { transactionSync } = db;
        expect(db.inTransaction).toBe(false);
        const seen = transactionSync(() => {
          db.run("INSERT INTO notes (body) VALUES (?)", "kept");
          const outer = db.inTransaction;
          const inner = db.transaction(() => db.inTransaction);
          return [outer, inner, db.inTransaction];
        });
        expect(seen).toEqual([true, true, true]);
        expect(db.inTransaction).toBe(false);
        expect(() =>
          transactionSync(() => {
            db.run("INSERT INTO notes (body) VALUES (?)", "lost");
            throw new Error("boom");
          }),
        ).toThrow("boom");
        expect(db.inTransaction).toBe(false);
        expect(bodies(db)).toEqual(["kept"]);
      }));
  });
});

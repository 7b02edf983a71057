/**
 * Batched commits (openNodeDatabase's commitDelayMs): transactions join one
 * open SQLite transaction, yet each stays atomic, later reads see it at once,
 * and flush/close/the timer make it durable. A model test drives random
 * transactions (some failing half way, some nested) against a reference map
 * and checks the store after each step and after reopening the file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { openNodeDatabase } from "./node.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "dofs-batch-"));
  dirs.push(dir);
  return join(dir, "store.sqlite");
}

const rows = (db: ReturnType<typeof openNodeDatabase>): [string, string][] =>
  db.all<{ k: string; v: string }>("SELECT k, v FROM kv ORDER BY k").map(({ k, v }) => [k, v]);

/** A small PRNG, so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

test("a failing transaction in a batch rolls back only itself; flush and close commit the rest", () => {
  const path = tempFile();
  const db = openNodeDatabase(path, { commitDelayMs: 60_000 });
  db.script("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
  // Opened before the batch holds the write lock (its pragmas need it).
  const other = openNodeDatabase(path);
  db.transaction(() => db.run("INSERT INTO kv VALUES ('a', '1')"));
  expect(() =>
    db.transaction(() => {
      db.run("INSERT INTO kv VALUES ('b', '2')");
      throw new Error("half way");
    }),
  ).toThrow("half way");
  db.transaction(() => db.run("INSERT INTO kv VALUES ('c', '3')"));
  expect(rows(db)).toEqual([
    ["a", "1"],
    ["c", "3"],
  ]);
  // Another connection sees nothing until the batch commits.
  expect(other.all("SELECT k FROM kv")).toEqual([]);
  db.flush();
  expect(other.all<{ k: string }>("SELECT k FROM kv ORDER BY k").map(({ k }) => k)).toEqual(["a", "c"]);
  db.run("INSERT INTO kv VALUES ('d', '4')");
  db.close();
  expect(other.all<{ k: string }>("SELECT k FROM kv ORDER BY k").map(({ k }) => k)).toEqual(["a", "c", "d"]);
  other.close();
});

test("checkedWrites joins an open batch without a savepoint; its storage error rolls back the whole batch", () => {
  const db = openNodeDatabase("", { commitDelayMs: 60_000 });
  db.script("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
  // With no batch open it is a transaction of its own, and opens the batch.
  db.checkedWrites?.(() => db.run("INSERT INTO kv VALUES ('a', '1')"));
  db.checkedWrites?.(() => db.run("INSERT INTO kv VALUES ('b', '2')"));
  expect(rows(db)).toEqual([
    ["a", "1"],
    ["b", "2"],
  ]);
  // Nested in a transaction it is a savepoint: the outer body may catch its failure.
  db.transaction(() => {
    expect(() =>
      db.checkedWrites?.(() => {
        db.run("INSERT INTO kv VALUES ('c', '3')");
        db.run("INSERT INTO kv VALUES ('a', 'again')");
      }),
    ).toThrow(/UNIQUE/);
    db.run("INSERT INTO kv VALUES ('d', '4')");
  });
  expect(rows(db).map(([k]) => k)).toEqual(["a", "b", "d"]);
  db.flush();
  // In an open batch a failure (here a constraint standing in for a full disk) takes the batch's uncommitted work along.
  db.transaction(() => db.run("INSERT INTO kv VALUES ('e', '5')"));
  expect(() =>
    db.checkedWrites?.(() => {
      db.run("INSERT INTO kv VALUES ('f', '6')");
      db.run("INSERT INTO kv VALUES ('a', 'again')");
    }),
  ).toThrow(/UNIQUE/);
  expect(rows(db).map(([k]) => k)).toEqual(["a", "b", "d"]);
  // The store goes on batching after it.
  db.transaction(() => db.run("INSERT INTO kv VALUES ('g', '7')"));
  db.flush();
  expect(rows(db).map(([k]) => k)).toEqual(["a", "b", "d", "g"]);
  db.close();
});

test("the commit timer commits a batch on its own", async () => {
  const path = tempFile();
  const db = openNodeDatabase(path, { commitDelayMs: 5 });
  db.script("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
  const other = openNodeDatabase(path);
  db.transaction(() => db.run("INSERT INTO kv VALUES ('a', '1')"));
  expect(other.all("SELECT k, v FROM kv")).toEqual([]);
  // No commit call: only the 5 ms timer can make the row visible to the other connection.
  await vi.waitFor(() => expect(other.all("SELECT k, v FROM kv")).toEqual([{ k: "a", v: "1" }]), {
    timeout: 5_000,
    interval: 10,
  });
  db.close();
  other.close();
});

test("random transactions against a model: atomic, visible at once, durable after close", () => {
  const seeds = Number(process.env.DOFS_MODEL_SEEDS ?? 3);
  for (let seed = 1; seed <= seeds; seed++) {
    const next = random(seed);
    const path = tempFile();
    const db = openNodeDatabase(path, { commitDelayMs: 60_000 });
    db.script("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    const model = new Map<string, string>();
    const log: string[] = [];
    const key = () => `k${Math.floor(next() * 20)}`;
    for (let step = 0; step < 400; step++) {
      const pick = next();
      if (pick < 0.1) {
        db.flush();
        log.push("flush");
      } else if (pick < 0.2) {
        const k = key();
        db.run("DELETE FROM kv WHERE k = ?", k);
        model.delete(k);
        log.push(`delete ${k}`);
      } else {
        // A transaction of a few writes, maybe with a nested one, maybe failing at its end or in the nested one.
        const writes = Array.from({ length: 1 + Math.floor(next() * 3) }, () => [key(), String(step)] as const);
        const nested = next() < 0.3 ? ([key(), `n${step}`] as const) : undefined;
        const failNested = nested !== undefined && next() < 0.5;
        const failOuter = next() < 0.25;
        const staged = new Map(model);
        try {
          db.transaction(() => {
            for (const [k, v] of writes) {
              db.run("INSERT INTO kv VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v);
              staged.set(k, v);
            }
            if (nested !== undefined) {
              try {
                db.transaction(() => {
                  db.run("INSERT INTO kv VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", ...nested);
                  if (failNested) throw new Error("nested");
                });
                staged.set(nested[0], nested[1]);
              } catch {}
            }
            if (failOuter) throw new Error("outer");
          });
          for (const [k, v] of staged) model.set(k, v);
        } catch {}
        log.push(`tx ${JSON.stringify({ writes, nested, failNested, failOuter })}`);
      }
      const expected = [...model].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(rows(db), `seed ${seed} after ${log.slice(-5).join("; ")}`).toEqual(expected);
    }
    db.close();
    const reopened = openNodeDatabase(path);
    expect(rows(reopened), `seed ${seed} after reopening`).toEqual([...model].sort(([a], [b]) => (a < b ? -1 : 1)));
    reopened.close();
  }
});

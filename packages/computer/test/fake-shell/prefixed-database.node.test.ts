import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { pullOnce, pushOnce, SyncPeer } from "@cloudflare/dofs/sync";
import { describe, expect, it } from "vitest";
import { dropPrefixedTables, prefixedDatabase, prefixedTables } from "./prefixed-database.js";

function tableNames(db: ReturnType<typeof openNodeDatabase>): string[] {
  return db
    .all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'",
    )
    .map((row) => row.name);
}

describe("prefixedDatabase", () => {
  it("keeps every dofs table and index under the prefix, through fs verbs, sync and gc", async () => {
    const raw = openNodeDatabase();
    const db = prefixedDatabase(raw, "p1_");
    const fs = new WorkspaceFilesystem(db);
    await fs.mkdir("/a/b", { recursive: true });
    await fs.writeFile("/a/b/f", "x".repeat(1000));
    await fs.symlink("/a/b/f", "/a/l");
    await fs.rename("/a/b/f", "/a/g");
    await fs.rm("/a/b", { recursive: true });
    await fs.grep("x", "/a");
    await fs.find("/", "*");
    await fs.gc({ safetyWindowMs: 0 });
    // A second store in the same file, synced both ways with the prefixed one.
    const other = new WorkspaceFilesystem(prefixedDatabase(raw, "p2_"));
    await other.writeFile("/from-other", "y");
    await pushOnce({ db: other.db, peer: "p1" }, new SyncPeer(db));
    await pullOnce({ db: other.db, peer: "p1" }, new SyncPeer(db));
    expect(await fs.readFile("/from-other", "utf8")).toBe("y");
    expect(await other.readFile("/a/g", "utf8")).toBe("x".repeat(1000));
    // Nothing escaped the prefixes: no table or index of the unprefixed store exists.
    const names = tableNames(raw);
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !/^_?p[12]_vfs_/.test(name))).toEqual([]);
    raw.close();
  });

  it("isolates two prefixes and the unprefixed store in one database", async () => {
    const raw = openNodeDatabase();
    const a = new WorkspaceFilesystem(prefixedDatabase(raw, "a_"));
    const b = new WorkspaceFilesystem(prefixedDatabase(raw, "b_"));
    const main = new WorkspaceFilesystem(raw);
    await a.writeFile("/only-a", "a");
    await b.writeFile("/only-b", "b");
    await main.writeFile("/only-main", "m");
    expect((await a.readdir("/")).map((entry) => entry.name)).toEqual(["only-a"]);
    expect((await b.readdir("/")).map((entry) => entry.name)).toEqual(["only-b"]);
    expect((await main.readdir("/")).map((entry) => entry.name)).toEqual(["only-main"]);
    raw.close();
  });

  it("lists and drops one prefix's tables, after which a new wrapper starts empty", async () => {
    const raw = openNodeDatabase();
    await new WorkspaceFilesystem(prefixedDatabase(raw, "x_1_")).writeFile("/f", "1");
    await new WorkspaceFilesystem(prefixedDatabase(raw, "x_11_")).writeFile("/f", "11");
    const tables = prefixedTables(raw, "x_1_");
    expect(tables).toContain("x_1_vfs_nodes");
    expect(tables).toContain("_x_1_vfs_watermark");
    expect(tables.some((name) => name.includes("x_11_"))).toBe(false);
    dropPrefixedTables(raw, "x_1_");
    expect(prefixedTables(raw, "x_1_")).toEqual([]);
    expect(await new WorkspaceFilesystem(prefixedDatabase(raw, "x_1_")).readdir("/")).toEqual([]);
    expect(await new WorkspaceFilesystem(prefixedDatabase(raw, "x_11_")).readFile("/f", "utf8")).toBe("11");
    raw.close();
  });

  it("delegates sha256 and transactions, and refuses a prefix that is not an identifier", async () => {
    const raw = openNodeDatabase();
    const db = prefixedDatabase(raw, "h_");
    expect(db.sha256?.(new Uint8Array())).toBe(raw.sha256?.(new Uint8Array()));
    expect(db.transaction(() => 42)).toBe(42);
    expect(() => prefixedDatabase(raw, "x; DROP")).toThrow(TypeError);
    expect(() => prefixedDatabase(raw, "")).toThrow(TypeError);
    raw.close();
  });
});

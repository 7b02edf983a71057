/**
 * The store in COMPUTERD_STATE_DIR (state.ts) on real SQLite files: a new
 * one is made, one left by an earlier daemon is reopened with its files,
 * and one that fails its check (not a database, a file's chunk without
 * bytes) is set aside under a new name with its bytes intact, never deleted.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { describe, expect, test } from "vitest";
import { removeTree, tempDir } from "../../test/daemon.js";
import { openStore, STORE_FILE } from "./state.js";

function opened(stateDir: string, lines: string[] = []) {
  return openStore({ store: "file", stateDir }, {}, (line) => lines.push(line), 1_700_000_000_000);
}

describe("openStore", () => {
  test("without a state directory the store dies with the process; with one it is a file", () => {
    expect(openStore({ store: "file", stateDir: undefined }, {}, () => {}).durable).toBe(false);
    expect(openStore({ store: "memory", stateDir: "/nonexistent" }, {}, () => {}).durable).toBe(false);
    const dir = tempDir("state");
    try {
      const { db, durable } = opened(join(dir, "nested"));
      expect(durable).toBe(true);
      db.close();
      expect(readdirSync(join(dir, "nested"))).toContain(STORE_FILE);
    } finally {
      removeTree(dir);
    }
  });

  test("a store left by an earlier daemon is reopened with its files", async () => {
    const dir = tempDir("state");
    try {
      const first = opened(dir).db;
      await new WorkspaceFilesystem(first).writeFile("/kept.txt", "kept\n");
      first.close();
      const lines: string[] = [];
      const again = opened(dir, lines).db;
      expect(await new WorkspaceFilesystem(again).readFile("/kept.txt", "utf8")).toBe("kept\n");
      expect(lines).toEqual([`store ${join(dir, STORE_FILE)}: reopened after a restart, checked`]);
      again.close();
    } finally {
      removeTree(dir);
    }
  });

  test("a file that is not a database is set aside, bytes intact, and the daemon starts empty", async () => {
    const dir = tempDir("state");
    try {
      writeFileSync(join(dir, STORE_FILE), "not a database at all, but someone's bytes ".repeat(200));
      const lines: string[] = [];
      const { db } = opened(dir, lines);
      expect(await new WorkspaceFilesystem(db).readdir("/")).toEqual([]);
      db.close();
      const aside = readdirSync(dir).filter((name) => name.startsWith(`${STORE_FILE}.failed-`));
      expect(aside).toEqual([`${STORE_FILE}.failed-2023-11-14T221320.000Z`]);
      expect(readFileSync(join(dir, aside[0] as string), "utf8")).toMatch(/^not a database at all/);
      expect(lines[0]).toMatch(
        /failed its check \(.*\); set aside as .*failed-2023.*, starting from the Durable Object's copy/,
      );
    } finally {
      removeTree(dir);
    }
  });

  test("a store whose file names a chunk with no bytes is set aside", async () => {
    const dir = tempDir("state");
    try {
      const path = join(dir, STORE_FILE);
      const first = openNodeDatabase(path);
      await new WorkspaceFilesystem(first).writeFile("/f", "some bytes");
      first.run("DELETE FROM vfs_blob_bytes");
      first.close();
      const lines: string[] = [];
      const { db } = opened(dir, lines);
      expect(lines[0]).toMatch(/failed its check \(chunk [0-9a-f]{64} of a file has no bytes\)/);
      expect(await new WorkspaceFilesystem(db).readdir("/")).toEqual([]);
      db.close();
    } finally {
      removeTree(dir);
    }
  });
});

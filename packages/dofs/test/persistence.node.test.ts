/**
 * Files written through a better-sqlite3 database file survive closing it and
 * opening a new filesystem over the same file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openNodeDatabase } from "../src/database.node.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("keeps files across closing and reopening the database file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dofs-"));
  dirs.push(dir);
  const path = join(dir, "workspace.sqlite");

  const first = openNodeDatabase(path);
  const fs = new WorkspaceFilesystem(first);
  await fs.mkdir("/workspace", { recursive: true });
  await fs.writeFile("/workspace/notes.txt", "survives restarts\n");
  first.close();

  const second = openNodeDatabase(path);
  try {
    expect(await new WorkspaceFilesystem(second).readFile("/workspace/notes.txt", "utf8")).toBe("survives restarts\n");
  } finally {
    second.close();
  }
});

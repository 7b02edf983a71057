/**
 * `#harness` in the `dofs:node` project: every call gets a fresh in-memory
 * better-sqlite3 database, closed when the body settles.
 */
import { openNodeDatabase } from "../src/database.node.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import type { FsHarness, WithDb, WithFs } from "./harness.js";

export const runtime: FsHarness["runtime"] = "node";

export const withDb: WithDb = async (body) => {
  const db = openNodeDatabase();
  try {
    await body({ runtime, db });
  } finally {
    db.close();
  }
};

export const withFs: WithFs = async (body, options) => {
  const db = openNodeDatabase();
  try {
    await body({ runtime, db, fs: new WorkspaceFilesystem(db, options) });
  } finally {
    db.close();
  }
};

/**
 * The contract both test harnesses implement. Test files import `#harness`,
 * which the Node project resolves to `harness.node.ts` (better-sqlite3) and
 * the workerd project to `harness.worker.ts` (a Durable Object's SQLite), so
 * one behavioral suite runs against both drivers.
 */
import type { Database } from "../src/database.js";
import type { WorkspaceFilesystem } from "../src/filesystem.js";
import type { FilesystemOptions } from "../src/types.js";

export interface FsHarness {
  runtime: "node" | "workerd";
  db: Database;
  fs: WorkspaceFilesystem;
}

/** Runs `body` against a fresh, empty database of this runtime's driver. */
export type WithFs = (body: (harness: FsHarness) => Promise<void> | void, options?: FilesystemOptions) => Promise<void>;

export interface DbHarness {
  runtime: FsHarness["runtime"];
  db: Database;
}

/** Runs `body` against a fresh, empty database without a filesystem on it (driver-level tests). */
export type WithDb = (body: (harness: DbHarness) => Promise<void> | void) => Promise<void>;

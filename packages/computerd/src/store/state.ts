/**
 * Where the workspace store lives. With `COMPUTERD_STATE_DIR` it is a file
 * there that outlives the daemon: a daemon that crashed (a bug, an OOM kill
 * of the daemon alone) and starts again finds what its writers had fsynced
 * or closed, and pushes what the Durable Object has not seen yet. Without
 * it, an anonymous temporary file SQLite deletes when the process dies; with
 * `COMPUTERD_STORE=memory`, the heap.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ensureSchema } from "@cloudflare/dofs";
import { type NodeDatabase, type NodeDatabaseOptions, openNodeDatabase } from "@cloudflare/dofs/node";

/** The store's file name in the state directory. */
export const STORE_FILE = "workspace.sqlite";

export interface OpenedStore {
  db: NodeDatabase;
  /** The store is a file that survives the process: a close and an fsync must reach it (see MountFs `persist`). */
  durable: boolean;
}

export interface StoreSetting {
  store: "file" | "memory";
  stateDir: string | undefined;
}

/**
 * Opens the store. A store file left by an earlier daemon is checked first
 * (SQLite's `quick_check`, and every file's chunk present with its bytes);
 * one that fails is set aside under a new name, never deleted, and the
 * daemon starts empty (the Durable Object's copy comes back with the next
 * push), saying so through `log`.
 */
export function openStore(
  setting: StoreSetting,
  options: NodeDatabaseOptions,
  log: (line: string) => void,
  now = Date.now(),
): OpenedStore {
  if (setting.store === "memory") return { db: openNodeDatabase(":memory:", options), durable: false };
  if (setting.stateDir === undefined) return { db: openNodeDatabase("", options), durable: false };
  mkdirSync(setting.stateDir, { recursive: true });
  const path = join(setting.stateDir, STORE_FILE);
  // Only a process crash must be survived: the container's disk goes with its machine.
  const durable = { ...options, survives: "process" } as const;
  if (!existsSync(path)) return { db: openNodeDatabase(path, durable), durable: true };
  let problem: string | undefined;
  try {
    const db = openNodeDatabase(path, durable);
    problem = checkStore(db, now);
    if (problem === undefined) {
      log(`store ${path}: reopened after a restart, checked`);
      return { db, durable: true };
    }
    db.close();
  } catch (error) {
    problem ??= (error as Error).message;
  }
  const aside = `${path}.failed-${new Date(now).toISOString().replaceAll(":", "")}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  }
  log(`store ${path} failed its check (${problem}); set aside as ${aside}, starting from the Durable Object's copy`);
  return { db: openNodeDatabase(path, durable), durable: true };
}

/** Undefined for a sound store; else what is wrong with it. */
export function checkStore(db: NodeDatabase, now: number): string | undefined {
  const rows = db.all<{ quick_check: string }>("PRAGMA quick_check");
  const verdict = rows.map((row) => row.quick_check).join("; ");
  if (verdict !== "ok") return `quick_check: ${verdict}`;
  ensureSchema(db, now);
  const missing = db.one<{ hash: string }>(
    `SELECT c.hash AS hash FROM vfs_chunks c
      WHERE NOT EXISTS (SELECT 1 FROM vfs_blobs b JOIN vfs_blob_bytes y ON y.hash = b.hash
                         WHERE b.hash = c.hash AND length(y.bytes) = b.size)
      LIMIT 1`,
  );
  if (missing !== undefined) return `chunk ${missing.hash} of a file has no bytes`;
  return undefined;
}

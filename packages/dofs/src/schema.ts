import { DEFAULT_DIR_MODE, ROOT_INODE, SCHEMA_VERSION } from "./constants.js";
import type { Database } from "./database.js";
import { fsError } from "./errors.js";

/**
 * Every table, created idempotently. Hashes are lowercase hex text: the same
 * form the manifest JSON and the wire carry, so no conversion sits on any path.
 */
const CREATE = `
CREATE TABLE IF NOT EXISTS vfs_meta (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vfs_nodes (
  inode INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL CHECK (type IN ('file', 'dir', 'symlink')),
  mode INTEGER NOT NULL DEFAULT 493,
  mtime INTEGER NOT NULL,
  rev INTEGER NOT NULL,
  mount_root TEXT,
  stub_size INTEGER,
  manifest_hash TEXT,
  link_target TEXT,
  size INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS vfs_nodes_rev ON vfs_nodes (rev);
CREATE INDEX IF NOT EXISTS vfs_nodes_manifest ON vfs_nodes (manifest_hash) WHERE manifest_hash IS NOT NULL;
CREATE TABLE IF NOT EXISTS vfs_dirents (
  parent_inode INTEGER NOT NULL,
  name TEXT NOT NULL,
  child_inode INTEGER NOT NULL,
  PRIMARY KEY (parent_inode, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vfs_dirents_child ON vfs_dirents (child_inode);
CREATE TABLE IF NOT EXISTS vfs_blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, last_seen INTEGER NOT NULL) WITHOUT ROWID;
-- A rowid table on purpose: in a WITHOUT ROWID table every lookup, even
-- length(bytes), walks the 512 KiB row's overflow pages (~2 ms a probe here).
CREATE TABLE IF NOT EXISTS vfs_blob_bytes (
  hash TEXT PRIMARY KEY REFERENCES vfs_blobs (hash) ON DELETE CASCADE,
  bytes BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS vfs_chunks (
  inode INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (inode, idx)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vfs_chunks_hash ON vfs_chunks (hash);
CREATE TABLE IF NOT EXISTS vfs_manifests (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, encoded TEXT NOT NULL, last_seen INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vfs_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rev INTEGER NOT NULL,
  path TEXT NOT NULL,
  op TEXT NOT NULL DEFAULT 'delete'
);
CREATE INDEX IF NOT EXISTS vfs_changes_rev ON vfs_changes (rev);
CREATE INDEX IF NOT EXISTS vfs_changes_path ON vfs_changes (path, id DESC);
CREATE TABLE IF NOT EXISTS _vfs_watermark (k TEXT NOT NULL, peer TEXT NOT NULL DEFAULT 'default', v INTEGER NOT NULL, PRIMARY KEY (k, peer)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_pull_cursor (peer TEXT PRIMARY KEY, path TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_push_cursor (peer TEXT PRIMARY KEY, path TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_peer_replica (peer TEXT PRIMARY KEY, replica TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_echo_revs (peer TEXT NOT NULL, rev INTEGER NOT NULL, PRIMARY KEY (peer, rev)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_mounts (
  root TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  indexed INTEGER NOT NULL DEFAULT 0,
  mode TEXT NOT NULL DEFAULT 'read-write'
) WITHOUT ROWID;
`;

/**
 * The sync tables as schema version 6 wrote them: the pull cursor was the
 * "fetch" cursor and a peer was keyed as a "backend". A v6 store may lack the
 * later-added tables, so the migration creates them in the old shape first.
 */
const V6_SYNC_TABLES = `
CREATE TABLE IF NOT EXISTS _vfs_watermark (k TEXT NOT NULL, backend TEXT NOT NULL DEFAULT 'default', v INTEGER NOT NULL, PRIMARY KEY (k, backend)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_fetch_cursor (backend TEXT PRIMARY KEY, path TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_push_cursor (backend TEXT PRIMARY KEY, path TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_peer_replica (backend TEXT PRIMARY KEY, replica TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _vfs_echo_revs (backend TEXT NOT NULL, rev INTEGER NOT NULL, PRIMARY KEY (backend, rev)) WITHOUT ROWID;
`;

/**
 * Forward migrations, keyed by the version they upgrade *from*. Version 6 is
 * this implementation's first on-disk format. They run before `CREATE`, so a
 * renamed table is never created empty next to the old one.
 */
const MIGRATIONS: Readonly<Record<number, (db: Database) => void>> = {
  // 6 → 7: the glossary's words, "pull" and "peer".
  6: (db) => {
    db.script(V6_SYNC_TABLES);
    db.script(`
ALTER TABLE _vfs_fetch_cursor RENAME TO _vfs_pull_cursor;
ALTER TABLE _vfs_pull_cursor RENAME COLUMN backend TO peer;
ALTER TABLE _vfs_push_cursor RENAME COLUMN backend TO peer;
ALTER TABLE _vfs_watermark RENAME COLUMN backend TO peer;
ALTER TABLE _vfs_peer_replica RENAME COLUMN backend TO peer;
ALTER TABLE _vfs_echo_revs RENAME COLUMN backend TO peer;
UPDATE _vfs_watermark SET k = 'pullRev' WHERE k = 'fetchRev';
`);
  },
};

const ready = new WeakSet<Database>();

/**
 * Creates or upgrades the schema once per `Database` object. Safe to call on
 * every operation: after the first call it is a set lookup.
 */
export function ensureSchema(db: Database, now: number): void {
  if (ready.has(db)) return;
  db.transaction(() => {
    db.run("CREATE TABLE IF NOT EXISTS vfs_meta (k TEXT PRIMARY KEY, v) WITHOUT ROWID");
    const row = db.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'schema_version'");
    if (row === undefined) {
      db.script(CREATE);
      seed(db, now);
    } else {
      let version = Number(row.v);
      if (version > SCHEMA_VERSION) {
        throw fsError(
          "EIO",
          "open",
          undefined,
          `on-disk schema version ${version} is newer than this dofs (${SCHEMA_VERSION})`,
        );
      }
      // Stores made before replica ids existed get one now.
      db.run("INSERT OR IGNORE INTO vfs_meta (k, v) VALUES ('replica', ?)", crypto.randomUUID());
      while (version < SCHEMA_VERSION) {
        const step = MIGRATIONS[version];
        if (!step) throw fsError("EIO", "open", undefined, `no migration from schema version ${version}`);
        step(db);
        version += 1;
        db.run("UPDATE vfs_meta SET v = ? WHERE k = 'schema_version'", version);
      }
      db.script(CREATE);
    }
  });
  ready.add(db);
}

function seed(db: Database, now: number): void {
  // `replica` names this copy of the store: a peer that restarts empty has a new one (see reconcileWatermarks).
  db.run(
    "INSERT INTO vfs_meta (k, v) VALUES ('schema_version', ?), ('rev', 1), ('replica', ?)",
    SCHEMA_VERSION,
    crypto.randomUUID(),
  );
  db.run(
    "INSERT INTO vfs_nodes (inode, type, mode, mtime, rev, size) VALUES (?, 'dir', ?, ?, 0, 0)",
    ROOT_INODE,
    DEFAULT_DIR_MODE,
    now,
  );
  db.run("INSERT INTO _vfs_watermark (k, peer, v) VALUES ('pushRev', 'default', 0), ('pullRev', 'default', 0)");
  db.run("INSERT INTO _vfs_pull_cursor (peer, path) VALUES ('default', NULL)");
  db.run("INSERT INTO _vfs_push_cursor (peer, path) VALUES ('default', NULL)");
}

/** Bumps the global revision inside the caller's transaction and returns the new value. */
export function bumpRev(db: Database): number {
  const row = db.one<{ v: number }>("UPDATE vfs_meta SET v = v + 1 WHERE k = 'rev' RETURNING v");
  return Number(row?.v);
}

/** This store's replica id: random, fixed for the life of the database. */
export function replicaId(db: Database): string {
  return String(db.one<{ v: string }>("SELECT v FROM vfs_meta WHERE k = 'replica'")?.v ?? "");
}

/**
 * The original's name for `ensureSchema`: creates or migrates the tables and
 * seeds rev 1 and the root directory. Idempotent; `now` stamps the root
 * (default the wall clock).
 */
export function initializeSchema(db: Database, now: number = Date.now()): void {
  ensureSchema(db, now);
}

export function currentRev(db: Database): number {
  return Number(db.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'rev'")?.v);
}

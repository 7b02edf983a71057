import type { Database } from "../database.js";
import { currentRev } from "../schema.js";
import { compareCursors } from "./cursor.js";
import { pruneEchoRevs } from "./echo.js";
import type { Cursor } from "./types.js";

/**
 * Per-peer sync state, keyed by backend id ('default' for a daemon's single
 * upstream). The push cursor is how much of *our* stream the peer has
 * acknowledged; the fetch cursor is how much of the *peer's* stream we have
 * applied. Each is a rev in `_vfs_watermark` plus a path in its own table.
 */
export function getPushCursor(db: Database, backend = "default"): Cursor {
  return read(db, "pushRev", "_vfs_push_cursor", backend);
}

export function getFetchCursor(db: Database, backend = "default"): Cursor {
  return read(db, "fetchRev", "_vfs_fetch_cursor", backend);
}

export function setPushCursor(db: Database, cursor: Cursor, backend = "default"): void {
  db.transaction(() => {
    write(db, "pushRev", "_vfs_push_cursor", backend, cursor);
    pruneEchoRevs(db, backend, cursor.rev);
  });
}

export function setFetchCursor(db: Database, cursor: Cursor, backend = "default"): void {
  db.transaction(() => {
    write(db, "fetchRev", "_vfs_fetch_cursor", backend, cursor);
    // Back to 0 means the peer's stream restarted: a new replica, which holds none of what the old one sent.
    if (cursor.rev === 0) pruneEchoRevs(db, backend, 0);
  });
}

/** Moves the fetch cursor up to `cursor`, never back. Returns the cursor now stored. */
export function advanceFetchCursor(db: Database, cursor: Cursor, backend = "default"): Cursor {
  return db.transaction(() => {
    const held = getFetchCursor(db, backend);
    if (compareCursors(cursor, held) <= 0) return held;
    setFetchCursor(db, cursor, backend);
    return cursor;
  });
}

export interface LocalWatermarks {
  currentRev: number;
  pushCursor: Cursor;
  fetchCursor: Cursor;
}

export function localWatermarks(db: Database, backend = "default"): LocalWatermarks {
  return {
    currentRev: currentRev(db),
    pushCursor: getPushCursor(db, backend),
    fetchCursor: getFetchCursor(db, backend),
  };
}

function read(db: Database, key: string, table: string, backend: string): Cursor {
  const rev = db.one<{ v: number }>("SELECT v FROM _vfs_watermark WHERE k = ? AND backend = ?", key, backend);
  const path = db.one<{ path: string | null }>(`SELECT path FROM ${table} WHERE backend = ?`, backend);
  return { rev: Number(rev?.v ?? 0), path: path?.path ?? null };
}

function write(db: Database, key: string, table: string, backend: string, cursor: Cursor): void {
  db.transaction(() => {
    db.run(
      `INSERT INTO _vfs_watermark (k, backend, v) VALUES (?, ?, ?)
       ON CONFLICT (k, backend) DO UPDATE SET v = excluded.v`,
      key,
      backend,
      cursor.rev,
    );
    db.run(
      `INSERT INTO ${table} (backend, path) VALUES (?, ?) ON CONFLICT (backend) DO UPDATE SET path = excluded.path`,
      backend,
      cursor.path,
    );
  });
}

import type { Database } from "../database.js";
import { currentRev } from "../schema.js";
import { compareCursors } from "./cursor.js";
import { pruneEchoRevs } from "./echo.js";
import type { Cursor } from "./types.js";

/**
 * Per-peer sync state, keyed by peer id ('default' for a daemon's single
 * upstream). The push cursor is how much of *our* stream the peer has
 * acknowledged; the pull cursor is how much of the *peer's* stream we have
 * applied. Each is a rev in `_vfs_watermark` plus a path in its own table.
 */
export function getPushCursor(db: Database, peer = "default"): Cursor {
  return read(db, "pushRev", "_vfs_push_cursor", peer);
}

export function getPullCursor(db: Database, peer = "default"): Cursor {
  return read(db, "pullRev", "_vfs_pull_cursor", peer);
}

export function setPushCursor(db: Database, cursor: Cursor, peer = "default"): void {
  db.transaction(() => {
    write(db, "pushRev", "_vfs_push_cursor", peer, cursor);
    pruneEchoRevs(db, peer, cursor.rev);
  });
}

export function setPullCursor(db: Database, cursor: Cursor, peer = "default"): void {
  db.transaction(() => {
    write(db, "pullRev", "_vfs_pull_cursor", peer, cursor);
    // Back to 0 means the peer's stream restarted: a new replica, which holds none of what the old one sent.
    if (cursor.rev === 0) pruneEchoRevs(db, peer, 0);
  });
}

/** Moves the pull cursor up to `cursor`, never back. Returns the cursor now stored. */
export function advancePullCursor(db: Database, cursor: Cursor, peer = "default"): Cursor {
  return db.transaction(() => {
    const held = getPullCursor(db, peer);
    if (compareCursors(cursor, held) <= 0) return held;
    setPullCursor(db, cursor, peer);
    return cursor;
  });
}

export interface LocalWatermarks {
  currentRev: number;
  pushCursor: Cursor;
  pullCursor: Cursor;
}

export function localWatermarks(db: Database, peer = "default"): LocalWatermarks {
  return {
    currentRev: currentRev(db),
    pushCursor: getPushCursor(db, peer),
    pullCursor: getPullCursor(db, peer),
  };
}

function read(db: Database, key: string, table: string, peer: string): Cursor {
  const rev = db.one<{ v: number }>("SELECT v FROM _vfs_watermark WHERE k = ? AND peer = ?", key, peer);
  const path = db.one<{ path: string | null }>(`SELECT path FROM ${table} WHERE peer = ?`, peer);
  return { rev: Number(rev?.v ?? 0), path: path?.path ?? null };
}

function write(db: Database, key: string, table: string, peer: string, cursor: Cursor): void {
  db.transaction(() => {
    db.run(
      `INSERT INTO _vfs_watermark (k, peer, v) VALUES (?, ?, ?)
       ON CONFLICT (k, peer) DO UPDATE SET v = excluded.v`,
      key,
      peer,
      cursor.rev,
    );
    db.run(
      `INSERT INTO ${table} (peer, path) VALUES (?, ?) ON CONFLICT (peer) DO UPDATE SET path = excluded.path`,
      peer,
      cursor.path,
    );
  });
}

import { compareCursors, ZERO_CURSOR } from "./cursor.js";
import { resolveLocal, type SyncLocal } from "./local.js";
import { type PullResult, pullOnce } from "./pull.js";
import { pushOnce } from "./push.js";
import type { SyncRPC } from "./types.js";
import { getFetchCursor, getPushCursor, setFetchCursor, setPushCursor } from "./watermarks.js";

/**
 * Run on (re)connect, before the connection is used: a remote whose rev is
 * behind what we fetched, or whose fetch cursor is behind what we pushed, has
 * lost state (a restarted container starts empty). The matching local
 * watermark resets to 0, so the next pull or push rebuilds from scratch.
 * The remote's own pushRev is ignored.
 */
export async function reconcileWatermarks(
  local: SyncLocal,
  remote: SyncRPC,
): Promise<{ fetchReset: boolean; pushReset: boolean }> {
  const { db, backend } = resolveLocal(local);
  const remoteMarks = await remote.watermarks();
  // A different replica id is a new store, whatever its revs say: one that
  // restarted empty and wrote past our fetch rev before we reconnected would
  // otherwise keep our old fetch cursor and never be pulled below it.
  const known = db.one<{ replica: string }>("SELECT replica FROM _vfs_peer_replica WHERE backend = ?", backend);
  const replaced = remoteMarks.replica !== undefined && known !== undefined && known.replica !== remoteMarks.replica;
  const fetchReset = replaced || remoteMarks.currentRev < getFetchCursor(db, backend).rev;
  if (fetchReset) setFetchCursor(db, ZERO_CURSOR, backend);
  const pushReset = replaced || compareCursors(remoteMarks.fetchCursor, getPushCursor(db, backend)) < 0;
  if (pushReset) setPushCursor(db, ZERO_CURSOR, backend);
  if (remoteMarks.replica !== undefined) {
    db.run(
      `INSERT INTO _vfs_peer_replica (backend, replica) VALUES (?, ?)
       ON CONFLICT (backend) DO UPDATE SET replica = excluded.replica`,
      backend,
      remoteMarks.replica,
    );
  }
  return { fetchReset, pushReset };
}

/** Pull, then push: one full round of sync in both directions. */
export async function tick(local: SyncLocal, remote: SyncRPC): Promise<{ pulled: PullResult; pushed: number }> {
  const pulled = await pullOnce(local, remote);
  const pushed = await pushOnce(local, remote);
  return { pulled, pushed };
}

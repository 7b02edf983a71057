import { compareCursors, ZERO_CURSOR } from "./cursor.js";
import { resolveLocal, type SyncLocal } from "./local.js";
import { type PullResult, pullOnce } from "./pull.js";
import { pushOnce } from "./push.js";
import type { SyncRPC } from "./types.js";
import { getPullCursor, getPushCursor, setPullCursor, setPushCursor } from "./watermarks.js";

/**
 * Run on (re)connect, before the connection is used: a remote whose rev is
 * behind what we fetched, or whose pull cursor (`fetchCursor` on the wire) is behind what we pushed, has
 * lost state (a restarted container starts empty). The matching local
 * watermark resets to 0, so the next pull or push rebuilds from scratch.
 * The remote's own pushRev is ignored.
 */
export async function reconcileWatermarks(
  local: SyncLocal,
  remote: SyncRPC,
): Promise<{ pullReset: boolean; pushReset: boolean }> {
  const { db, peer } = resolveLocal(local);
  const remoteMarks = await remote.watermarks();
  // A different replica id is a new store, whatever its revs say: one that
  // restarted empty and wrote past our pull rev before we reconnected would
  // otherwise keep our old pull cursor and never be pulled below it.
  const known = db.one<{ replica: string }>("SELECT replica FROM _vfs_peer_replica WHERE peer = ?", peer);
  const replaced = remoteMarks.replica !== undefined && known !== undefined && known.replica !== remoteMarks.replica;
  const pullReset = replaced || remoteMarks.currentRev < getPullCursor(db, peer).rev;
  if (pullReset) setPullCursor(db, ZERO_CURSOR, peer);
  const pushReset = replaced || compareCursors(remoteMarks.fetchCursor, getPushCursor(db, peer)) < 0;
  if (pushReset) setPushCursor(db, ZERO_CURSOR, peer);
  if (remoteMarks.replica !== undefined) {
    db.run(
      `INSERT INTO _vfs_peer_replica (peer, replica) VALUES (?, ?)
       ON CONFLICT (peer) DO UPDATE SET replica = excluded.replica`,
      peer,
      remoteMarks.replica,
    );
  }
  return { pullReset, pushReset };
}

/** Pull, then push: one full round of sync in both directions. */
export async function tick(local: SyncLocal, remote: SyncRPC): Promise<{ pulled: PullResult; pushed: number }> {
  const pulled = await pullOnce(local, remote);
  const pushed = await pushOnce(local, remote);
  return { pulled, pushed };
}

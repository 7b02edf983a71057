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
  const fetchReset = remoteMarks.currentRev < getFetchCursor(db, backend).rev;
  if (fetchReset) setFetchCursor(db, ZERO_CURSOR, backend);
  const pushReset = compareCursors(remoteMarks.fetchCursor, getPushCursor(db, backend)) < 0;
  if (pushReset) setPushCursor(db, ZERO_CURSOR, backend);
  return { fetchReset, pushReset };
}

/** Pull, then push: one full round of sync in both directions. */
export async function tick(local: SyncLocal, remote: SyncRPC): Promise<{ pulled: PullResult; pushed: number }> {
  const pulled = await pullOnce(local, remote);
  const pushed = await pushOnce(local, remote);
  return { pulled, pushed };
}

import { BlobBatch, hasBlob } from "../blobs.js";
import { fsError } from "../errors.js";
import { holdBlobs } from "../gc.js";
import { sha256Hex } from "../hash.js";
import { fromHex, toHex } from "../hex.js";
import { applyChanges, prepareEntries } from "./apply.js";
import { compareCursors, ZERO_CURSOR } from "./cursor.js";
import { checkEntry } from "./entry.js";
import { type ResolvedLocal, resolveLocal, SYNC_BATCH_ENTRIES, type SyncBudget, type SyncLocal } from "./local.js";
import { HAS_OBJECTS_LIMIT } from "./peer.js";
import type { ChangeEntry, Cursor, FetchChangesResult, RefusedEntry, SkippedEntry, SyncRPC } from "./types.js";
import { advancePullCursor, getPullCursor, getPushCursor, setPullCursor, setPushCursor } from "./watermarks.js";
import { fromWire, type StoredChange } from "./wire.js";

export interface PullResult {
  applied: number;
  /** Entries under a read-only mount (the original's skips). */
  skipped: SkippedEntry[];
  /** Ours: entries refused for a name too long to store; absent when there were none. */
  refused?: RefusedEntry[];
}

export interface PullBatchResult extends PullResult {
  status: "complete" | "pending";
  entries: number;
  bytes: number;
  cursor: Cursor;
  targetCursor: Cursor;
}

export interface PullOptions {
  /** Replaces the remote's ignore list for this pull. */
  ignore?: string[];
}

/** Pulls everything the remote changed since the pull cursor, 256 entries a batch. */
export async function pullOnce(local: SyncLocal, remote: SyncRPC, options: PullOptions = {}): Promise<PullResult> {
  const { applied, skipped, refused } = await pull(resolveLocal(local), remote, undefined, options);
  return refused ? { applied, skipped, refused } : { applied, skipped };
}

/** One bounded pull: stops once the entry, byte or wall-time budget is spent. */
export async function pullBatch(
  local: SyncLocal,
  remote: SyncRPC,
  budget: SyncBudget,
  options: PullOptions = {},
): Promise<PullBatchResult> {
  return pull(resolveLocal(local), remote, budget, options);
}

/**
 * fetchChanges from the pull cursor, then per batch: fetch the blobs the
 * remote has and we lack, stage them, apply the entries and move the pull
 * cursor to the batch's last (rev, path) — apply and cursor in one
 * transaction, so a crash replays nothing and loses nothing. When the
 * remote's cursors show it lost state we had acknowledged (a restarted
 * container), the affected watermark resets to 0 and the pull retries once.
 */
async function pull(
  ctx: ResolvedLocal,
  remote: SyncRPC,
  budget: SyncBudget | undefined,
  options: PullOptions,
): Promise<PullBatchResult> {
  const { db, peer } = ctx;
  const held = getPullCursor(db, peer);
  if (budget?.targetCursor && compareCursors(budget.targetCursor, held) <= 0) {
    // Already past the target: nothing is due, and the remote's snapshot (capped at the target) would
    // look like a lost store to the divergence check below.
    return { status: "complete", applied: 0, skipped: [], entries: 0, bytes: 0, cursor: held, targetCursor: held };
  }
  for (let attempt = 0; ; attempt++) {
    const after = getPullCursor(db, peer);
    const pushed = getPushCursor(db, peer);
    const response = await remote.fetchChanges({
      after,
      ...(budget?.targetCursor ? { through: budget.targetCursor } : {}),
      ...(options.ignore ? { ignore: options.ignore } : {}),
    });
    let diverged = false;
    if (response.appliedPushCursor.rev < pushed.rev) {
      setPushCursor(db, ZERO_CURSOR, peer);
      diverged = true;
    }
    if (compareCursors(response.currentCursor, after) < 0) {
      setPullCursor(db, ZERO_CURSOR, peer);
      diverged = true;
    }
    try {
      if (diverged) {
        await response.stream.cancel().catch(() => {});
        if (attempt === 0) continue;
        throw new Error("sync invariant: the remote diverged again right after a watermark reset");
      }
      if (compareCursors(response.appliedPushCursor, pushed) < 0) {
        await response.stream.cancel().catch(() => {});
        throw new Error("sync invariant: the remote has not applied what it acknowledged");
      }
      return await drain(ctx, remote, response.stream, after, response.currentCursor, budget);
    } finally {
      disposeEnvelope(response);
    }
  }
}

/**
 * Over capnweb the fetchChanges result holds the stream's stub; disposing it
 * frees the remote's side at once instead of when the session ends (and a
 * raw stub caller must dispose envelopes). A plain SyncPeer result has no
 * disposer.
 */
function disposeEnvelope(response: FetchChangesResult): void {
  const dispose = (response as Partial<Disposable>)[Symbol.dispose];
  if (typeof dispose === "function") {
    try {
      dispose.call(response);
    } catch {
      // The session may already be gone; nothing is left to free then.
    }
  }
}

async function drain(
  ctx: ResolvedLocal,
  remote: SyncRPC,
  stream: ReadableStream<ChangeEntry>,
  after: Cursor,
  target: Cursor,
  budget: SyncBudget | undefined,
): Promise<PullBatchResult> {
  const { db, peer } = ctx;
  const result: PullBatchResult = {
    status: "complete",
    applied: 0,
    skipped: [],
    entries: 0,
    bytes: 0,
    cursor: after,
    targetCursor: target,
  };
  if (compareCursors(after, target) >= 0) {
    await stream.cancel().catch(() => {});
    return result;
  }
  const deadline = budget?.maxWallTimeMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + budget.maxWallTimeMs;
  const reader = stream.getReader();
  try {
    for (;;) {
      const room = budget ? Math.min(SYNC_BATCH_ENTRIES, budget.maxEntries - result.entries) : SYNC_BATCH_ENTRIES;
      const batch: StoredChange[] = [];
      let ended = false;
      while (batch.length < room) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          break;
        }
        // The remote's entries are checked as a peer checks a push: a bad one is a TypeError, nothing applies.
        batch.push(fromWire(checkEntry(value)));
      }
      if (batch.length > 0) {
        // The batch's chunks are held from gc from before they are fetched until they are linked.
        const release = holdBlobs(db, batchHashes(batch));
        let applied: ReturnType<typeof applyChanges>;
        try {
          result.bytes += await fetchMissing(ctx, remote, batch);
          const prepared = await prepareEntries(batch, db);
          const last = batch[batch.length - 1] as StoredChange;
          applied = db.transaction(() => {
            const outcome = applyChanges(db, prepared, "upstream", ctx.now(), peer);
            result.cursor = advancePullCursor(db, { rev: last.rev, path: last.path }, peer);
            return outcome;
          });
        } finally {
          release();
        }
        result.applied += applied.applied;
        result.skipped.push(...applied.skipped);
        if (applied.refused) result.refused = [...(result.refused ?? []), ...applied.refused];
        result.entries += batch.length;
      }
      if (ended) break;
      const spent =
        budget !== undefined &&
        (result.entries >= budget.maxEntries || result.bytes >= budget.maxBytes || Date.now() >= deadline);
      if (spent) {
        // Pending only if something is left: a budget that exactly fits the rest is complete.
        // A peeked entry is not applied; the cursor stays before it, so the next pull brings it again.
        const peek = await reader.read();
        if (peek.done) break;
        result.status = "pending";
        await reader.cancel().catch(() => {});
        return result;
      }
    }
  } catch (error) {
    // The rest of the stream will never be read: let the remote stop producing it.
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  // Drained: ignored paths and raced-out windows are covered by moving up to the snapshot.
  result.cursor = advancePullCursor(db, target, peer);
  return result;
}

function batchHashes(batch: readonly StoredChange[]): string[] {
  const hashes: string[] = [];
  for (const entry of batch) if (entry.kind === "file") for (const chunk of entry.chunks) hashes.push(chunk.hash);
  return hashes;
}

/** Fetches and stages the blobs this batch needs that only the remote holds. Returns bytes fetched. */
async function fetchMissing(ctx: ResolvedLocal, remote: SyncRPC, batch: StoredChange[]): Promise<number> {
  const lacking = new Set<string>();
  for (const entry of batch) {
    if (entry.kind !== "file") continue;
    for (const chunk of entry.chunks) if (!hasBlob(ctx.db, chunk.hash)) lacking.add(chunk.hash);
  }
  if (lacking.size === 0) return 0;
  const wanted: Uint8Array[] = [];
  const all = [...lacking];
  for (let i = 0; i < all.length; i += HAS_OBJECTS_LIMIT) {
    wanted.push(...(await remote.hasObjects(all.slice(i, i + HAS_OBJECTS_LIMIT).map(fromHex))));
  }
  if (wanted.length === 0) return 0;
  let bytes = 0;
  const staged = new BlobBatch(ctx.db, ctx.now);
  // A promise over capnweb, the stream itself from a local peer.
  const frames = await remote.fetchObjects(wanted);
  for await (const frame of frames as unknown as AsyncIterable<{ hash: Uint8Array; bytes: Uint8Array }>) {
    const hex = toHex(frame.hash);
    if (!lacking.has(hex) || (await sha256Hex(frame.bytes, ctx.db)) !== hex) {
      throw fsError("EUNKNOWN_HASH", "fetchObjects", hex, "the remote sent an object that does not match its hash");
    }
    staged.add(hex, frame.bytes);
    bytes += frame.bytes.byteLength;
  }
  staged.flush();
  return bytes;
}

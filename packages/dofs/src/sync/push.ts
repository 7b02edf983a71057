import { readBlob } from "../blobs.js";
import { fromHex, toHex } from "../hex.js";
import { currentRev } from "../schema.js";
import { type PlannedChange, planChanges, readChange } from "./coalesce.js";
import { compareCursors, minCursor } from "./cursor.js";
import {
  PUSH_OBJECT_BUDGET,
  type ResolvedLocal,
  resolveLocal,
  SYNC_BATCH_ENTRIES,
  type SyncBudget,
  type SyncLocal,
} from "./local.js";
import { HAS_OBJECTS_LIMIT } from "./peer.js";
import type { ChangeEntry, Cursor, ObjectFrame, SyncRPC } from "./types.js";
import { getPushCursor, setPushCursor } from "./watermarks.js";
import { type StoredChange, toWire } from "./wire.js";

export interface PushBatchResult {
  /** `complete` once the push cursor reached the target; `pending` when more is left. */
  status: "complete" | "pending";
  /** Entries the remote received in this call. */
  entries: number;
  /** Blob bytes sent in this call. */
  bytes: number;
  cursor: Cursor;
  targetCursor: Cursor;
}

/**
 * Pushes everything changed locally since the push cursor, in batches of 256
 * entries whose missing blobs fit 4 MiB. Plans once, so a long push does
 * not re-scan the tree per batch. Returns the number of entries sent.
 */
export async function pushOnce(local: SyncLocal, remote: SyncRPC): Promise<number> {
  const ctx = resolveLocal(local);
  const plan = new PushPlan(ctx, { rev: currentRev(ctx.db), path: null });
  let sent = 0;
  for (;;) {
    const step = await pushStep(ctx, remote, plan, SYNC_BATCH_ENTRIES, PUSH_OBJECT_BUDGET);
    sent += step.entries;
    if (step.status === "complete") return sent;
  }
}

/**
 * One bounded push: at most `maxEntries` entries and `maxBytes` of blobs
 * (the first blob always goes, so a huge chunk still makes progress).
 */
export async function pushBatch(local: SyncLocal, remote: SyncRPC, budget: SyncBudget): Promise<PushBatchResult> {
  const ctx = resolveLocal(local);
  // Never past what exists: a push cursor ahead of the current rev would claim the next write as sent.
  const now: Cursor = { rev: currentRev(ctx.db), path: null };
  const plan = new PushPlan(ctx, budget.targetCursor ? minCursor(budget.targetCursor, now) : now);
  const deadline = budget.maxWallTimeMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + budget.maxWallTimeMs;
  let entries = 0;
  let bytes = 0;
  for (;;) {
    const step = await pushStep(
      ctx,
      remote,
      plan,
      Math.max(1, Math.min(SYNC_BATCH_ENTRIES, budget.maxEntries - entries)),
      Math.max(1, budget.maxBytes - bytes),
    );
    entries += step.entries;
    bytes += step.bytes;
    const spent = entries >= budget.maxEntries || bytes >= budget.maxBytes || Date.now() >= deadline;
    if (step.status === "complete" || spent) return { ...step, entries, bytes };
  }
}

/**
 * The coalesced changes from the push cursor to a fixed target, planned once
 * and consumed batch by batch. Paths changed again past the target are left
 * for the next push (`readChange` returns null for them).
 */
class PushPlan {
  readonly target: Cursor;
  /**
   * Chunks the remote is known to hold (probed, or pushed by this plan), so
   * a big file's chunk list is probed once, not once per 4 MiB step.
   */
  readonly held = new Set<string>();
  readonly #ctx: ResolvedLocal;
  readonly #plan: PlannedChange[];
  #next = 0;

  constructor(ctx: ResolvedLocal, target: Cursor) {
    this.#ctx = ctx;
    this.target = target;
    const cursor = getPushCursor(ctx.db, ctx.peer);
    this.#plan = compareCursors(cursor, target) >= 0 ? [] : planChanges(ctx.db, cursor, target, [], ctx.peer);
  }

  /** Up to `max` entries, each with the plan position just after it (to rewind to). */
  take(max: number): { batch: StoredChange[]; ends: number[] } {
    const batch: StoredChange[] = [];
    const ends: number[] = [];
    while (this.#next < this.#plan.length && batch.length < max) {
      const entry = readChange(this.#ctx.db, this.#plan[this.#next++] as PlannedChange, this.target);
      if (entry === null) continue;
      batch.push(entry);
      ends.push(this.#next);
    }
    return { batch, ends };
  }

  get drained(): boolean {
    return this.#next >= this.#plan.length;
  }

  rewind(position: number): void {
    this.#next = position;
  }
}

/**
 * Sends one batch toward the plan's target. The remote acknowledges with its
 * applied cursor, which must cover what was sent before the push cursor
 * moves: a watermark never advances past anything uncommitted on the other
 * side.
 */
async function pushStep(
  ctx: ResolvedLocal,
  remote: SyncRPC,
  plan: PushPlan,
  maxEntries: number,
  maxBytes: number,
): Promise<PushBatchResult> {
  const { db, peer } = ctx;
  const { target } = plan;
  const cursor = getPushCursor(db, peer);
  const done = (entries: number, bytes: number, at: Cursor): PushBatchResult => ({
    status: compareCursors(at, target) >= 0 ? "complete" : "pending",
    entries,
    bytes,
    cursor: at,
    targetCursor: target,
  });
  if (compareCursors(cursor, target) >= 0) return done(0, 0, cursor);

  const { batch, ends } = plan.take(maxEntries);
  if (batch.length === 0 && plan.drained && cursor.rev === 0) {
    // Nothing was ever sent and nothing is due: no RPC, and no cursor the peer has not seen.
    return { ...done(0, 0, cursor), status: "complete" };
  }

  // Blobs first: only those the remote lacks, within the byte budget.
  const { fits, frames, bytes } = await chooseObjects(remote, batch, maxBytes, plan.held);
  if (frames.length > 0) {
    await remote.pushObjects(streamFrames(ctx, frames));
    for (const frame of frames) plan.held.add(frame.hash);
  }
  if (fits < batch.length) plan.rewind(fits === 0 ? (ends[0] as number) - 1 : (ends[fits - 1] as number));
  const entries = batch.slice(0, fits);
  if (entries.length === 0 && batch.length > 0) return done(0, bytes, cursor);

  const complete = plan.drained && entries.length === batch.length;
  const lastEntry = entries[entries.length - 1];
  const ack: Cursor = complete || lastEntry === undefined ? target : { rev: lastEntry.rev, path: lastEntry.path };
  const result = await remote.push({ senderRev: target.rev, senderCursor: ack, changes: streamEntries(entries) });
  if (compareCursors(result.appliedPushCursor, ack) < 0) {
    throw new Error(
      `sync invariant: remote applied cursor ${JSON.stringify(result.appliedPushCursor)} is behind ${JSON.stringify(ack)}`,
    );
  }
  setPushCursor(db, ack, peer);
  return done(entries.length, bytes, ack);
}

/**
 * The longest prefix of `batch` whose missing blobs fit `maxBytes`, and
 * the blobs to send for it. When even the first entry's blobs overflow,
 * as many of them as fit are sent (at least one) and no entry goes yet.
 */
async function chooseObjects(
  remote: SyncRPC,
  batch: StoredChange[],
  maxBytes: number,
  held: Set<string>,
): Promise<{ fits: number; frames: { hash: string; size: number }[]; bytes: number }> {
  const missing = new Set<string>();
  for (const entry of batch) {
    if (entry.kind === "file") for (const c of entry.chunks) if (!held.has(c.hash)) missing.add(c.hash);
  }
  const unknown = [...missing];
  for (let i = 0; i < unknown.length; i += HAS_OBJECTS_LIMIT) {
    const found = await remote.hasObjects(unknown.slice(i, i + HAS_OBJECTS_LIMIT).map(fromHex));
    for (const hash of found) {
      const hex = toHex(hash);
      missing.delete(hex);
      held.add(hex);
    }
  }
  const frames: { hash: string; size: number }[] = [];
  const chosen = new Set<string>();
  let bytes = 0;
  let fits = 0;
  for (const entry of batch) {
    const needed = entry.kind === "file" ? entry.chunks.filter((c) => missing.has(c.hash) && !chosen.has(c.hash)) : [];
    const unique = [...new Map(needed.map((c) => [c.hash, c])).values()];
    const cost = unique.reduce((n, c) => n + c.size, 0);
    if (bytes + cost > maxBytes && !(frames.length === 0 && cost === 0)) {
      if (fits === 0) {
        // The first entry alone overflows: send what fits of it (always one blob) and no entries.
        for (const c of unique) {
          if (frames.length > 0 && bytes + c.size > maxBytes) break;
          frames.push(c);
          bytes += c.size;
        }
      }
      break;
    }
    for (const c of unique) {
      chosen.add(c.hash);
      frames.push(c);
    }
    bytes += cost;
    fits += 1;
  }
  return { fits, frames, bytes };
}

/** The entries in their wire form, each converted as the remote pulls it. */
function streamEntries(entries: StoredChange[]): ReadableStream<ChangeEntry> {
  let next = 0;
  return new ReadableStream<ChangeEntry>({
    pull(controller) {
      const entry = entries[next++];
      if (entry === undefined) controller.close();
      else controller.enqueue(toWire(entry));
    },
  });
}

/** Reads each blob as the remote pulls it, so at most a chunk or two is in memory. */
function streamFrames(ctx: ResolvedLocal, frames: { hash: string; size: number }[]): ReadableStream<ObjectFrame> {
  let next = 0;
  return new ReadableStream<ObjectFrame>(
    {
      pull(controller) {
        const frame = frames[next++];
        if (frame === undefined) {
          controller.close();
          return;
        }
        const bytes = readBlob(ctx.db, frame.hash, frame.size, "pushObjects", frame.hash);
        controller.enqueue({ hash: fromHex(frame.hash), bytes: bytes.slice() });
      },
    },
    { highWaterMark: 0 },
  );
}

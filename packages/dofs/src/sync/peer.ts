import { BlobBatch, hasBlob, readBlob } from "../blobs.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { holdBlobs } from "../gc.js";
import { sha256Hex } from "../hash.js";
import { toHex } from "../hex.js";
import { normalizePath } from "../path.js";
import { currentRev, ensureSchema, replicaId } from "../schema.js";
import { type ApplyResult, applyChanges, prepareEntries } from "./apply.js";
import { planChanges, readChange, readEntry } from "./coalesce.js";
import { checkCursor, compareCursors, minCursor, ZERO_CURSOR } from "./cursor.js";
import { checkEntry } from "./entry.js";
import type {
  ChangeEntry,
  Cursor,
  FetchChangesRequest,
  FetchChangesResult,
  ObjectFrame,
  PushRequest,
  PushResult,
  SyncRPC,
  Watermarks,
} from "./types.js";
import { advancePullCursor, getPullCursor, getPushCursor } from "./watermarks.js";
import { fromWire, type StoredChange, toWire } from "./wire.js";

/** Hashes one `hasObjects` call may ask about. */
export const HAS_OBJECTS_LIMIT = 100;

/**
 * How long this peer holds blobs for a sync the other side started and never
 * finished (blobs pushed but no push, a pull envelope never acknowledged),
 * after which gc may take them: the other side's retry starts over anyway.
 */
export const SYNC_HOLD_MS = 10 * 60_000;

/** Blobs held for one unfinished step of sync; `last` is the last entry a pull envelope streamed. */
interface SyncHold {
  releases: (() => void)[];
  touched: number;
  last?: Cursor;
}

export interface SyncPeerOptions {
  /** Path segments `fetchChanges` leaves out unless a call brings its own list. */
  ignore?: string[];
  /**
   * Runs after a push applied at least one entry, with the entries in the
   * store's form (the shim flushes to disk; a FUSE mount drops the kernel's
   * caches of their paths). Errors are logged, not thrown.
   */
  afterApply?: (result: ApplyResult, entries: readonly StoredChange[]) => void | Promise<void>;
  /**
   * Runs before a push applies its entries, with the entries (a FUSE mount
   * commits what it buffers first, so the apply rules see every local write,
   * and keeps what an open file of a changed path still reads). Errors are logged.
   */
  beforeApply?: (entries: readonly StoredChange[]) => void | Promise<void>;
  /** Runs before every fetchChanges (the shim reconciles disk first). Errors are logged, except under `settle`. */
  beforeFetch?: () => void | Promise<void>;
  now?: () => number;
  /** Watermark key for the upstream this peer serves. */
  peer?: string;
  log?: (message: string, error: unknown) => void;
}

/**
 * One side of sync served over a dofs database: what `WorkspaceRPC.sync`
 * answers. The other side (the Durable Object) drives it with the sync
 * driver; this class only applies what it is sent and describes what it has.
 */
export class SyncPeer implements SyncRPC {
  readonly #db: Database;
  readonly #options: SyncPeerOptions;
  readonly #now: () => number;
  readonly #peer: string;
  /** Blobs staged by pushObjects, unreferenced until the push that names them applies. */
  #pushed: SyncHold[] = [];
  /** Chunks named by fetchChanges streams the other side has not acknowledged (it may still fetch them). */
  #envelopes: SyncHold[] = [];

  constructor(db: Database, options: SyncPeerOptions = {}) {
    this.#db = db;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#peer = options.peer ?? "default";
  }

  /**
   * Reads the whole change stream (entries only: blobs came first through
   * `pushObjects`), then applies it and moves the pull cursor in one
   * transaction. A sender with `senderRev > 0` is a peer: its entries are
   * upstream and the cursor moves forward only, to `senderCursor` or, when
   * the peer sent none, to `{senderRev, null}`. `senderRev` 0 is an outside
   * writer: ordinary local writes, echoed as `{0, null}`.
   */
  async push(request: PushRequest): Promise<PushResult> {
    const db = this.#ready();
    const senderRev = request?.senderRev;
    if (!Number.isSafeInteger(senderRev) || senderRev < 0) throw new TypeError("push senderRev must be a rev");
    // The blobs pushed for this batch stay held until it applied (or failed: the sender starts over).
    const pushed = this.#pushed;
    this.#pushed = [];
    try {
      return await this.#push(db, request, senderRev);
    } finally {
      for (const hold of pushed) release(hold);
    }
  }

  async #push(db: Database, request: PushRequest, senderRev: number): Promise<PushResult> {
    const senderCursor =
      request.senderCursor === undefined ? undefined : checkCursor(request.senderCursor, "senderCursor");
    const entries: StoredChange[] = [];
    for await (const entry of request.changes as unknown as AsyncIterable<unknown>) {
      entries.push(fromWire(checkEntry(entry)));
    }
    if (entries.length > 0 && this.#options.beforeApply) {
      try {
        await this.#options.beforeApply(entries);
      } catch (error) {
        this.#log("beforeApply failed", error);
      }
    }
    const prepared = await prepareEntries(entries, db);
    const isPeer = senderRev > 0;
    // A peer that sends no cursor (the reference's driver pushes whole revs) has offered all of senderRev.
    const offered = senderCursor ?? { rev: senderRev, path: null };
    const result = db.transaction(() => {
      const applied = applyChanges(db, prepared, isPeer ? "upstream" : "local", this.#now(), this.#peer);
      const cursor = isPeer ? advancePullCursor(db, offered, this.#peer) : undefined;
      return { applied, cursor };
    });
    if (entries.length > 0 && this.#options.afterApply) {
      try {
        await this.#options.afterApply(result.applied, entries);
      } catch (error) {
        this.#log("afterApply failed", error);
      }
    }
    return {
      rev: currentRev(db),
      applied: entries.length,
      appliedPushCursor: isPeer ? (result.cursor ?? getPullCursor(db, this.#peer)) : ZERO_CURSOR,
      ...(result.applied.skipped.length > 0 ? { skipped: result.applied.skipped } : {}),
      ...(result.applied.refused ? { refused: result.applied.refused } : {}),
    };
  }

  /**
   * Streams this side's changes after `after`, coalesced, up to a snapshot
   * taken now (`through` if lower). Entries are read as the stream is pulled.
   */
  async fetchChanges(request: FetchChangesRequest = {}): Promise<FetchChangesResult> {
    const db = this.#ready();
    if (this.#options.beforeFetch) {
      try {
        await this.#options.beforeFetch();
      } catch (error) {
        this.#log("beforeFetch failed", error);
      }
    }
    const after = request.after === undefined ? ZERO_CURSOR : checkCursor(request.after, "after");
    this.#acknowledge(after);
    const snapshot: Cursor = { rev: currentRev(db), path: null };
    const currentCursor =
      request.through === undefined ? snapshot : minCursor(snapshot, checkCursor(request.through, "through"));
    const ignore = request.ignore ?? this.#options.ignore ?? [];
    if (!Array.isArray(ignore) || ignore.some((segment) => typeof segment !== "string")) {
      throw new TypeError("ignore must be a list of path segments");
    }
    const plan = planChanges(db, after, currentCursor, ignore, this.#peer);
    const envelope: SyncHold = { releases: [], touched: this.#now() };
    this.#envelopes.push(envelope);
    const now = this.#now;
    let next = 0;
    const stream = new ReadableStream<ChangeEntry>(
      {
        pull(controller) {
          while (next < plan.length) {
            const entry = readChange(db, plan[next++] as (typeof plan)[number], currentCursor);
            if (entry !== null) {
              // Its chunks stay until the other side acknowledges the entry (its next fetchChanges starts past it).
              if (entry.kind === "file" && entry.chunks.length > 0) {
                envelope.releases.push(
                  holdBlobs(
                    db,
                    entry.chunks.map((chunk) => chunk.hash),
                  ),
                );
              }
              envelope.last = { rev: entry.rev, path: entry.path };
              envelope.touched = now();
              controller.enqueue(toWire(entry));
              return;
            }
          }
          controller.close();
        },
      },
      { highWaterMark: 64 },
    );
    return { currentCursor, appliedPushCursor: getPullCursor(db, this.#peer), stream };
  }

  async watermarks(options: { settle?: boolean } = {}): Promise<Watermarks> {
    const db = this.#ready();
    if (options?.settle && this.#options.beforeFetch) await this.#options.beforeFetch();
    return {
      currentRev: currentRev(db),
      pushRev: getPushCursor(db, this.#peer).rev,
      fetchCursor: getPullCursor(db, this.#peer),
      replica: replicaId(db),
    };
  }

  async readEntry(path: string): Promise<ChangeEntry | null> {
    const entry = readEntry(this.#ready(), normalizePath(path, "sync"));
    return entry === null ? null : toWire(entry);
  }

  async hasObjects(hashes: Uint8Array[]): Promise<Uint8Array[]> {
    const db = this.#ready();
    checkHashes(hashes, HAS_OBJECTS_LIMIT);
    return hashes.filter((hash) => hasBlob(db, toHex(hash)));
  }

  /** Throws at once for a bad or unknown hash (over capnweb: the call rejects). */
  fetchObjects(hashes: Uint8Array[]): ReadableStream<ObjectFrame> {
    const db = this.#ready();
    checkHashes(hashes, Number.POSITIVE_INFINITY);
    const wanted = hashes.map((hash) => toHex(hash));
    const sizes = wanted.map((hex) => {
      const row = db.one<{ size: number }>("SELECT size FROM vfs_blobs WHERE hash = ?", hex);
      if (row === undefined || !hasBlob(db, hex)) throw fsError("EUNKNOWN_HASH", "fetchObjects", hex);
      return Number(row.size);
    });
    let next = 0;
    const releaseWanted = holdBlobs(db, wanted);
    return new ReadableStream<ObjectFrame>(
      {
        pull(controller) {
          const i = next++;
          const hex = wanted[i];
          if (hex === undefined) {
            releaseWanted();
            controller.close();
            return;
          }
          try {
            const bytes = readBlob(db, hex, sizes[i] as number, "fetchObjects", hex);
            controller.enqueue({ hash: hashes[i] as Uint8Array, bytes: bytes.slice() });
          } catch (error) {
            releaseWanted();
            throw error;
          }
        },
        cancel() {
          releaseWanted();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Stages each blob after checking its bytes hash to its name (a mismatch is EUNKNOWN_HASH). */
  async pushObjects(objects: ReadableStream<ObjectFrame>): Promise<void> {
    const db = this.#ready();
    this.#expire();
    const batch = new BlobBatch(db, this.#now);
    // Held from before staging until the push naming them applies (see push), or SYNC_HOLD_MS.
    const hold: SyncHold = { releases: [], touched: this.#now() };
    this.#pushed.push(hold);
    for await (const frame of objects as unknown as AsyncIterable<ObjectFrame>) {
      if (!(frame?.hash instanceof Uint8Array) || !(frame.bytes instanceof Uint8Array)) {
        throw new TypeError("pushObjects frames must be {hash: Uint8Array, bytes: Uint8Array}");
      }
      const hex = toHex(frame.hash);
      if ((await sha256Hex(frame.bytes, db)) !== hex)
        throw fsError("EUNKNOWN_HASH", "pushObjects", hex, "bytes do not match their hash");
      hold.releases.push(holdBlobs(db, [hex]));
      batch.add(hex, frame.bytes);
    }
    batch.flush();
    hold.touched = this.#now();
  }

  /**
   * The other side asks for changes after `after`: it has applied every entry
   * up to there, so envelopes that streamed nothing past it are done with.
   */
  #acknowledge(after: Cursor): void {
    this.#expire();
    this.#envelopes = this.#envelopes.filter((envelope) => {
      const done = envelope.last === undefined || compareCursors(envelope.last, after) <= 0;
      if (done) release(envelope);
      return !done;
    });
  }

  /** Holds of a sync the other side abandoned long ago. */
  #expire(): void {
    const cutoff = this.#now() - SYNC_HOLD_MS;
    const keep = (hold: SyncHold): boolean => {
      if (hold.touched > cutoff) return true;
      release(hold);
      return false;
    };
    this.#pushed = this.#pushed.filter(keep);
    this.#envelopes = this.#envelopes.filter(keep);
  }

  #ready(): Database {
    ensureSchema(this.#db, this.#now());
    return this.#db;
  }

  #log(message: string, error: unknown): void {
    (this.#options.log ?? ((m, e) => console.error(`[dofs sync] ${m}:`, e)))(message, error);
  }
}

function release(hold: SyncHold): void {
  for (const each of hold.releases) each();
  hold.releases = [];
}

function checkHashes(hashes: unknown, limit: number): asserts hashes is Uint8Array[] {
  if (!Array.isArray(hashes) || hashes.some((hash) => !(hash instanceof Uint8Array) || hash.byteLength !== 32)) {
    throw new TypeError("hashes must be 32-byte Uint8Arrays");
  }
  if (hashes.length > limit) throw new TypeError(`at most ${limit} hashes per call`);
}

/**
 * Idle reclaim: once the daemon has been quiet for `idleMs`, memory its last
 * burst of work left behind goes back to the kernel. Chunk gc
 * (store/collector.ts) frees blobs in the store; this frees what the process
 * itself kept:
 *
 * 1. the mount's idle state (`releaseIdle`): parked files are committed and
 *    the buffer pool drops its idle chunk buffers;
 * 2. SQLite's page cache (`PRAGMA shrink_memory`);
 * 3. dead Buffers and V8's emptied pages (V8's low-memory collection: an
 *    idle process allocates nothing, so V8 would never look);
 * 4. glibc's free pages (malloc_trim(0): free() only shrinks the heap from
 *    its top, so freed chunk buffers below a live allocation stay resident).
 *
 * Quiet means: the store's rev did not move, the mount's parked bytes did
 * not change, and RSS stayed within `noiseBytes`, for `idleMs`. A reclaim
 * runs once per quiet spell, and only if the store moved or RSS grew by
 * `growthBytes` since the last one (reads make garbage without a new rev).
 * Nothing here frees what a live file, a handle or a sync step still uses:
 * step 1 commits rather than drops, and the rest only frees what nobody
 * references any more.
 */
import { currentRev } from "@cloudflare/dofs";
import type { NodeDatabase } from "@cloudflare/dofs/node";
import { fullCollector, loadMallocTrim } from "./native.js";

export interface ReclaimerOptions {
  /** Commits parked files and shrinks the mount's pools (MountDriver.releaseIdle). */
  releaseIdle?: () => void;
  /** Bytes the mount holds for closed files (its parked bytes): a change is activity. */
  parkedBytes?: () => number;
  now?: () => number;
  rss?: () => number;
  pollMs?: number;
  idleMs?: number;
  log?: (message: string, error: unknown) => void;
}

export class Reclaimer {
  readonly #db: NodeDatabase;
  readonly #options: ReclaimerOptions;
  readonly #now: () => number;
  readonly #rss: () => number;
  readonly #gc = fullCollector();
  readonly #trim = loadMallocTrim();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lastRev = -1;
  #lastParked = 0;
  #lastRss = 0;
  #activeAt = 0;
  /** What the last reclaim left: the rev it started at and RSS after it. */
  #reclaimedRev = -1;
  #reclaimedRss = 0;
  #totals = { runs: 0, lastFreed: 0 };

  constructor(db: NodeDatabase, options: ReclaimerOptions = {}) {
    this.#db = db;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#rss = options.rss ?? (() => process.memoryUsage.rss());
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#activeAt = this.#now();
    this.#timer = setInterval(() => {
      try {
        this.#tick();
      } catch (error) {
        this.#options.log?.("idle reclaim failed", error);
      }
    }, this.#options.pollMs ?? POLL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  stats(): Record<string, number> {
    return {
      reclaim_runs: this.#totals.runs,
      // A test waits for reclaim_rev to reach vfs_rev: a reclaim that started after every change.
      reclaim_rev: this.#reclaimedRev,
      reclaim_last_freed_bytes: this.#totals.lastFreed,
      reclaim_gc: this.#gc === undefined ? 0 : 1,
      reclaim_malloc_trim: this.#trim === undefined ? 0 : 1,
    };
  }

  /** One reclaim now, whatever the activity (tests, and the tick once quiet). */
  reclaim(): Promise<void> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #tick(): void {
    if (this.#running !== undefined) return;
    const now = this.#now();
    const rev = currentRev(this.#db);
    const parked = this.#options.parkedBytes?.() ?? 0;
    const rss = this.#rss();
    if (rev !== this.#lastRev || parked !== this.#lastParked || Math.abs(rss - this.#lastRss) > NOISE_BYTES) {
      this.#activeAt = now;
    }
    this.#lastRev = rev;
    this.#lastParked = parked;
    this.#lastRss = rss;
    if (now - this.#activeAt < (this.#options.idleMs ?? IDLE_MS)) return;
    if (rev === this.#reclaimedRev && rss < this.#reclaimedRss + GROWTH_BYTES) return;
    this.reclaim().catch((error) => this.#options.log?.("idle reclaim failed", error));
  }

  async #run(): Promise<void> {
    const startRev = currentRev(this.#db);
    const before = this.#rss();
    try {
      this.#options.releaseIdle?.();
    } catch (error) {
      // A file that cannot commit stays dirty (MountFs keeps it); the rest is reclaimed, and this
      // quiet spell is done either way, or every tick would try and log again.
      this.#options.log?.("committing idle files failed", error);
    }
    this.#db.run("PRAGMA shrink_memory");
    await this.#gc?.();
    // V8 frees dead ArrayBuffers' memory on a helper thread after the collection: let it finish.
    await new Promise((resolve) => setTimeout(resolve, SWEEP_WAIT_MS));
    this.#trim?.();
    const after = this.#rss();
    this.#totals.runs++;
    this.#totals.lastFreed = Math.max(0, before - after);
    // A commit of parked files moved the rev: the next quiet spell looks again (gc may free more).
    this.#reclaimedRev = startRev;
    this.#reclaimedRss = after;
    this.#lastRss = after;
  }
}

const POLL_MS = 500;
/** Quiet this long before a reclaim (COMPUTERD_IDLE_RECLAIM_MS): past a burst of commands, not between two of its writes. */
const IDLE_MS = 3_000;
/** RSS moving less than this between two polls is not activity. */
const NOISE_BYTES = 2 * 1024 * 1024;
/** RSS grown this much since the last reclaim is worth another one, rev moved or not. */
const GROWTH_BYTES = 16 * 1024 * 1024;
const SWEEP_WAIT_MS = 200;

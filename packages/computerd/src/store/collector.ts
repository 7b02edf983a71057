/**
 * Chunk garbage collection for the daemon's store. Nothing else frees a
 * blob: an overwrite, a delete or a sync apply only leaves it unreferenced.
 *
 * When: the collector looks at the store's rev every `pollMs`. Once it has
 * moved, a sweep starts when the rev has stood still for a tick (a burst of
 * writes is over) or `maxDelayMs` after the first unswept change (a long
 * burst, like a rewrite loop, is swept while it runs).
 *
 * How much: a sweep is a series of passes, each one transaction over at most
 * `passBlobs` unreferenced blobs plus `vacuumPages` pages handed back to the
 * file, with the event loop free between passes, so FUSE requests never wait
 * behind a whole sweep.
 *
 * What survives: every blob a chunk row names; every blob `held` reports
 * (the mount's open and parked files: a file unlinked while open, chunks
 * shared by copy_file_range but not committed, chunk lists kept across a
 * push); every blob a writer or a sync step holds in dofs (`holdBlobs`: a
 * streamed writeFile, objects pushed before their push, a pull envelope not
 * acknowledged, a fetchObjects or readFile stream); and, when `windowMs` is
 * not 0, every blob touched less than that long ago.
 */
import { currentRev } from "@cloudflare/dofs";
import { collectGarbage } from "@cloudflare/dofs/inode";
import type { NodeDatabase } from "@cloudflare/dofs/node";

export interface ChunkCollectorOptions {
  /** Adds the hashes the mount still needs outside the store's rows. */
  held: (into: Set<string>) => void;
  /** 0 when `held` knows every holder; the spec's hour when it cannot (a driver that does not report). */
  windowMs: number;
  now?: () => number;
  pollMs?: number;
  maxDelayMs?: number;
  passBlobs?: number;
  vacuumPages?: number;
  log?: (message: string, error: unknown) => void;
}

export interface SweepResult {
  passes: number;
  blobsFreed: number;
  bytesFreed: number;
  blobsHeld: number;
}

export class ChunkCollector {
  readonly #db: NodeDatabase;
  readonly #options: ChunkCollectorOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** The rev the last finished sweep started at; a sweep is due when the store moved past it. */
  #sweptRev = -1;
  #lastRev = -1;
  #changedAt = 0;
  #dirtySince: number | undefined;
  /** Set when the last sweep kept blobs for a holder or the window: it looks again then, rev moved or not. */
  #retryAt: number | undefined;
  #sweeping: Promise<SweepResult> | undefined;
  #totals = { sweeps: 0, blobsFreed: 0, bytesFreed: 0 };

  constructor(db: NodeDatabase, options: ChunkCollectorOptions) {
    this.#db = db;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#tick(), this.#options.pollMs ?? POLL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  stats(): Record<string, number> {
    return {
      // A test waits for gc_swept_rev to reach vfs_rev, then checks the store's bytes.
      vfs_rev: currentRev(this.#db),
      gc_swept_rev: this.#sweptRev,
      gc_sweeps: this.#totals.sweeps,
      gc_blobs_freed: this.#totals.blobsFreed,
      gc_bytes_freed: this.#totals.bytesFreed,
      store_file_bytes: this.#db.size().bytes,
    };
  }

  #tick(): void {
    if (this.#sweeping !== undefined) return;
    const rev = currentRev(this.#db);
    const now = this.#now();
    if (rev !== this.#lastRev) this.#changedAt = now;
    if (rev === this.#sweptRev) {
      // A handle closing or a sync acknowledging frees what it held without moving the rev.
      if (this.#retryAt !== undefined && now >= this.#retryAt) this.#sweep().catch((error) => this.#log(error));
      else if (now - this.#changedAt >= QUIET_MS && this.#db.size().freeBytes >= VACUUM_MIN_FREE_BYTES) {
        this.#track(this.#vacuum().then(() => EMPTY_SWEEP)).catch((error) => this.#log(error));
      }
      this.#lastRev = rev;
      return;
    }
    const settled = rev === this.#lastRev;
    this.#lastRev = rev;
    this.#dirtySince ??= now;
    if (!settled && now - this.#dirtySince < (this.#options.maxDelayMs ?? MAX_DELAY_MS)) return;
    this.#sweep().catch((error) => this.#log(error));
  }

  #log(error: unknown): void {
    this.#options.log?.("chunk gc failed", error);
  }

  #sweep(): Promise<SweepResult> {
    return this.#track(this.#run());
  }

  #track(work: Promise<SweepResult>): Promise<SweepResult> {
    const sweeping = work.finally(() => {
      if (this.#sweeping === sweeping) this.#sweeping = undefined;
    });
    this.#sweeping = sweeping;
    return sweeping;
  }

  /**
   * Hands the free pages back to the file in bounded steps. Only once the
   * store is quiet: SQLite reuses free pages for the next writes, while a
   * vacuum moves live pages to cut the file, which a rewrite loop would pay
   * for on every turn.
   */
  async #vacuum(): Promise<void> {
    while (this.#db.vacuum(this.#options.vacuumPages ?? VACUUM_PAGES) > 0) await yieldToLoop();
  }

  async #run(): Promise<SweepResult> {
    const startRev = currentRev(this.#db);
    this.#dirtySince = undefined;
    const result: SweepResult = { passes: 0, blobsFreed: 0, bytesFreed: 0, blobsHeld: 0 };
    let after: string | undefined;
    do {
      // The held set is taken inside the pass, on this loop's turn: nothing can open or share a chunk meanwhile.
      const held = new Set<string>();
      this.#options.held(held);
      const pass = collectGarbage(this.#db, {
        now: this.#now(),
        windowMs: this.#options.windowMs,
        limit: this.#options.passBlobs ?? PASS_BLOBS,
        isHeld: (hash) => held.has(hash),
        ...(after === undefined ? {} : { after }),
      });
      result.passes++;
      result.blobsFreed += pass.blobsFreed;
      result.bytesFreed += pass.bytesFreed;
      result.blobsHeld += pass.blobsHeld;
      after = pass.next;
      if (after !== undefined) await yieldToLoop();
    } while (after !== undefined);
    this.#sweptRev = startRev;
    const windowMs = this.#options.windowMs;
    this.#retryAt =
      result.blobsHeld > 0
        ? this.#now() + (this.#options.maxDelayMs ?? MAX_DELAY_MS)
        : windowMs > 0
          ? this.#now() + Math.min(windowMs, WINDOW_RETRY_MS)
          : undefined;
    this.#totals.sweeps++;
    this.#totals.blobsFreed += result.blobsFreed;
    this.#totals.bytesFreed += result.bytesFreed;
    return result;
  }
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const POLL_MS = 250;
const MAX_DELAY_MS = 1_000;
/** The store is quiet (vacuum may run) once its rev has not moved for this long. */
const QUIET_MS = 2_000;
/** Free pages worth a vacuum. */
const VACUUM_MIN_FREE_BYTES = 8 * 1024 * 1024;
const EMPTY_SWEEP: SweepResult = { passes: 0, blobsFreed: 0, bytesFreed: 0, blobsHeld: 0 };
/** With a window, blobs too young for one sweep are looked at again this often. */
const WINDOW_RETRY_MS = 60_000;
/** 64 blobs of up to 512 KiB: a pass frees at most 32 MiB (a few ms to tens of ms). */
const PASS_BLOBS = 64;
/** 8 MiB of 4 KiB pages moved and cut off the file per step. */
const VACUUM_PAGES = 2_048;

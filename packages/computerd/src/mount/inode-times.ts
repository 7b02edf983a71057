/**
 * The times the store does not keep, per inode, in the daemon's memory:
 * ctime, atime, and the nanoseconds of the mtime (dofs stores and syncs the
 * mtime in whole milliseconds; docs/computerd.md, "Timestamps"). A
 * directory's mtime moved by an entry change lives here too, so a create
 * does not rewrite (and re-sync) its directory. What is not here reads as
 * the stored mtime, which is also what a restart falls back to.
 */

/** Nanoseconds since the epoch. */
export type Nanos = bigint;

export interface Times {
  atime: Nanos;
  mtime: Nanos;
  ctime: Nanos;
}

interface Entry {
  /** The stored mtime (ms) these times go with; another one means the store moved without us (a pull). */
  base?: number;
  atime?: Nanos;
  mtime?: Nanos;
  ctime?: Nanos;
}

const NS_PER_MS = 1_000_000n;
/** relatime: an atime older than this is refreshed by any read. */
const RELATIME_NS = 86_400n * 1_000_000_000n;

/** A wall clock in nanoseconds: Date.now's epoch, hrtime's resolution. */
export function wallClock(): () => Nanos {
  const offset = BigInt(Date.now()) * NS_PER_MS - process.hrtime.bigint();
  return () => offset + process.hrtime.bigint();
}

/** The whole milliseconds of a time (floored, also before 1970). */
export function msOf(ns: Nanos): number {
  const ms = ns / NS_PER_MS;
  return Number(ns < 0n && ms * NS_PER_MS !== ns ? ms - 1n : ms);
}

export function nanosOf(ms: number): Nanos {
  return BigInt(Math.floor(ms)) * NS_PER_MS;
}

export class InodeTimes {
  readonly #entries = new Map<number, Entry>();
  readonly #limit: number;
  /**
   * Moves with every time held here. Every change of an inode moves its
   * ctime, so attributes read before (a directory listing kept across
   * requests) are stale once it moved.
   */
  version = 0;
  /**
   * Called with an inode whenever a change moves one of its times, so that
   * relatime's next read moves the atime (and after a read that leaves it
   * so: an mtime in the future); `contents` when it was `modified` (the
   * mtime moved with its contents or entries).
   */
  onChange: ((inode: number, contents: boolean) => void) | undefined;

  /** Past `limit` inodes the least recently changed ones fall back to their stored mtime (memory stays bounded). */
  constructor(limit = 50_000) {
    this.#limit = limit;
  }

  /** An inode's times, given the mtime (ms) the store or its open file has now. */
  get(inode: number, storedMs: number): Times {
    const stored = nanosOf(storedMs);
    const entry = this.#entries.get(inode);
    if (entry === undefined) return { atime: stored, mtime: stored, ctime: stored };
    if (entry.base === undefined) entry.base = storedMs;
    else if (entry.base !== storedMs) {
      // Changed under us (a pull, a commit of another writer): the store's mtime wins, and it changed the inode.
      entry.base = storedMs;
      entry.mtime = stored;
      if (entry.ctime === undefined || entry.ctime < stored) entry.ctime = stored;
    }
    // An atime not yet known is the mtime it had before anything here changed it.
    entry.atime ??= stored;
    const mtime = entry.mtime ?? stored;
    return { atime: entry.atime, mtime, ctime: entry.ctime ?? mtime };
  }

  /** A new inode: all three times are its birth. */
  born(inode: number, at: Nanos): void {
    this.#set(inode, { base: msOf(at), atime: at, mtime: at, ctime: at });
  }

  /**
   * Contents changed (a write, a truncate, an entry of a directory): mtime
   * and ctime move. `before` is the stored mtime until now (the atime of an
   * inode not seen yet), `after` the one stored with the change (a
   * directory's stays as it was, so undefined).
   */
  modified(inode: number, at: Nanos, before?: number, after?: number): void {
    const entry = this.#take(inode);
    if (entry.atime === undefined && before !== undefined) entry.atime = nanosOf(before);
    if (entry.base === undefined && before !== undefined) entry.base = before;
    if (after !== undefined) entry.base = after;
    entry.mtime = at;
    entry.ctime = at;
    this.#set(inode, entry);
    this.onChange?.(inode, true);
  }

  /** The inode itself changed (mode, link count, its name): only ctime moves. */
  changed(inode: number, at: Nanos): void {
    const entry = this.#take(inode);
    entry.ctime = at;
    this.#set(inode, entry);
    this.onChange?.(inode, false);
  }

  /** utimensat: the times asked for (undefined leaves one alone), ctime now; `storedMs` is the stored mtime after it. */
  set(inode: number, storedMs: number, times: { atime?: Nanos; mtime?: Nanos }, at: Nanos): void {
    const current = this.get(inode, storedMs);
    const entry = this.#take(inode);
    entry.base = storedMs;
    entry.atime = times.atime ?? current.atime;
    entry.mtime = times.mtime ?? current.mtime;
    entry.ctime = at;
    this.#set(inode, entry);
    this.onChange?.(inode, false);
  }

  /**
   * A read (relatime, Linux's default): the atime moves only when it is not
   * newer than the mtime or ctime, or is a day old. True when it moved.
   */
  accessed(inode: number, storedMs: number, at: Nanos): boolean {
    const times = this.get(inode, storedMs);
    if (times.atime > times.mtime && times.atime > times.ctime && at - times.atime < RELATIME_NS) return false;
    const entry = this.#take(inode);
    entry.base ??= storedMs;
    entry.atime = at;
    this.#set(inode, entry);
    // An mtime in the future keeps the next read due too: as a change would.
    if (at <= times.mtime) this.onChange?.(inode, false);
    return true;
  }

  /** The same inode under another number (an O_TMPFILE file given a store inode). */
  move(from: number, to: number): void {
    const entry = this.#entries.get(from);
    if (entry === undefined) return;
    this.#entries.delete(from);
    this.#set(to, entry);
  }

  /** The inode is gone. */
  forget(inode: number): void {
    if (this.#entries.delete(inode)) this.version++;
  }

  get size(): number {
    return this.#entries.size;
  }

  #take(inode: number): Entry {
    const entry = this.#entries.get(inode) ?? {};
    this.#entries.delete(inode);
    return entry;
  }

  #set(inode: number, entry: Entry): void {
    this.version++;
    this.#entries.delete(inode);
    this.#entries.set(inode, entry);
    if (this.#entries.size <= this.#limit) return;
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}

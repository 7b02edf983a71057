/**
 * Directory listings without OPENDIR (no-opendir). READDIRPLUS then comes
 * with handle 0 and an offset only: nothing ties one request of a listing
 * to the next, and the directory may change between them. So an entry's
 * offset is a function of its name alone: 8 + hash × 8 + its index among
 * the names of the same hash (in code-unit order), with a 49-bit hash of
 * the name (1 and 2 are `.` and `..`). A listing is in offset order and a
 * request at offset X answers the entries after X. An entry that stays in
 * the directory keeps its offset whatever else is added or removed, so it
 * is never repeated or skipped; one added meanwhile shows if its offset is
 * still ahead (POSIX allows either). The exception would be a hash shared
 * by two names, one of them added or removed mid-listing (that shifts the
 * other's index): about n² / 2^50 for a directory of n names.
 *
 * Why not the store's byte order: a 63-bit offset cannot say "after this
 * name" for names of up to 255 bytes, and a position in byte order moves
 * when an entry before it goes. Why not a snapshot per listing, as the
 * handles of OPENDIR keep (dir-ops.ts): the kernel comes back to old
 * offsets long after any snapshot would be gone (its own cache of the
 * listing, which no-opendir turns on; telldir/seekdir). ext4's hashed
 * directories give out offsets the same way.
 *
 * What is kept: a directory's entries in that order with their attributes,
 * from the first request of a listing until its last (the empty answer), at
 * most LISTINGS_KEPT directories. They are read again when any directory's
 * entries changed (MountFs.entryVersion), and the attributes of a later
 * page entry by entry when any inode changed (attrVersion), so no page
 * hands the kernel attributes older than its request.
 */
import type { FuseStat, MountFs } from "../mount-fs.js";

/** The offsets of `.` and `..`; every other entry's is at least FIRST. */
const DOT = 1;
const DOTDOT = 2;
const FIRST = 8;
/** Names of one hash get offsets hash × GROUP + 0 … GROUP − 1 (more than 8 names of one 49-bit hash do not happen). */
const GROUP = 8;
const LISTINGS_KEPT = 16;

export interface Listing {
  /** `.` and `..` first, then the entries in offset order. */
  readonly names: string[];
  readonly stats: FuseStat[];
  readonly offsets: number[];
  readonly entryVersion: number;
  readonly attrVersion: number;
}

/** What one request answers: `listing`'s entries from `from` on, each with `stat(i)` (undefined: left out). */
export interface ListingPage {
  listing: Listing;
  from: number;
  stat(i: number): FuseStat | undefined;
}

export class Listings {
  readonly #fs: MountFs;
  readonly #kept = new Map<number, Listing>();

  constructor(fs: MountFs) {
    this.#fs = fs;
  }

  /** The entries of directory `dir` (an inode, at FUSE path `path`) after offset `after`. */
  page(dir: number, path: string, after: number): ListingPage {
    const fs = this.#fs;
    let listing = this.#kept.get(dir);
    this.#kept.delete(dir);
    if (listing === undefined || listing.entryVersion !== fs.entryVersion || after === 0) {
      listing = ordered(fs.readdirPlus(path), fs.entryVersion, fs.attrVersion);
    }
    const from = startOf(listing.offsets, after);
    // The last answer of a listing is the empty one: nothing more will be asked of it.
    if (from < listing.names.length) {
      this.#kept.set(dir, listing);
      if (this.#kept.size > LISTINGS_KEPT) this.#kept.delete(this.#kept.keys().next().value as number);
    }
    const current = listing.attrVersion === fs.attrVersion;
    const { stats } = listing;
    return {
      listing,
      from,
      stat: (i) => (current || i < 2 ? stats[i] : fs.inodeStat((stats[i] as FuseStat).ino)),
    };
  }
}

/** `.` and `..` (as readdirPlus answers them, first), then the rest in offset order. */
export function ordered(
  read: { names: string[]; stats: FuseStat[] },
  entryVersion: number,
  attrVersion: number,
): Listing {
  const hashes = read.names.map(nameHash);
  const order = [...read.names.keys()].slice(2);
  order.sort((a, b) => {
    const byHash = (hashes[a] as number) - (hashes[b] as number);
    if (byHash !== 0) return byHash;
    return (read.names[a] as string) < (read.names[b] as string) ? -1 : 1;
  });
  const names = read.names.slice(0, 2);
  const stats = read.stats.slice(0, 2);
  const offsets = [DOT, DOTDOT];
  let group = 0;
  for (const [at, i] of order.entries()) {
    const hash = hashes[i] as number;
    group = at > 0 && hashes[order[at - 1] as number] === hash ? Math.min(group + 1, GROUP - 1) : 0;
    names.push(read.names[i] as string);
    stats.push(read.stats[i] as FuseStat);
    offsets.push(FIRST + hash * GROUP + group);
  }
  return { names, stats, offsets, entryVersion, attrVersion };
}

/** The index of the first entry after offset `after` (0: from `.`). */
export function startOf(offsets: readonly number[], after: number): number {
  if (after < DOTDOT) return after <= 0 ? 0 : 1;
  let low = 2;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((offsets[mid] as number) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * A 49-bit hash of a name's UTF-16 code units: two 32-bit multiplicative
 * hashes with a final mix each, 32 bits of one and 17 of the other. Any
 * fixed function of the name would do; this one is fast and spreads
 * similar names (`file1`, `file2`) apart.
 */
export function nameHash(name: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  b ^= b >>> 15;
  b = Math.imul(b, 0x2c1b3c6d);
  b ^= b >>> 12;
  return (a >>> 0) * 2 ** 17 + (b >>> 15);
}

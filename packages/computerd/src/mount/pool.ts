/**
 * A pool of chunk-sized buffers for the write buffer. Fresh large Buffers cost
 * page faults on first touch (~260 ms per 64 MiB in this VM); reusing them
 * does not. Up to `keep` idle buffers are retained; the rest go to the GC.
 * Only buffers the pool made come back to it (a compacted copy does not).
 *
 * A buffer shared by several files (copy_file_range of a dirty chunk) is
 * frozen: nobody writes it in place, its hash is computed once, and it comes
 * back to the pool when the last file holding it gives it back.
 */
export class BufferPool {
  readonly #size: number;
  readonly #keep: number;
  readonly #idle: Buffer[] = [];
  readonly #made = new WeakSet<Buffer>();
  /** Frozen buffers → how many files hold them. */
  readonly #holders = new WeakMap<Buffer, number>();
  readonly #hashes = new WeakMap<Buffer, string>();
  #inUse = 0;

  constructor(size: number, keep: number) {
    this.#size = size;
    this.#keep = keep;
  }

  get size(): number {
    return this.#size;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get idle(): number {
    return this.#idle.length;
  }

  /** Lets every idle buffer go to the GC (idle reclaim): a quiet daemon holds no chunk buffers it is not using. */
  trim(): void {
    this.#idle.length = 0;
  }

  /** A buffer of `size` bytes with unspecified contents. */
  take(): Buffer {
    this.#inUse++;
    const buffer = this.#idle.pop();
    if (buffer !== undefined) return buffer;
    const fresh = Buffer.allocUnsafeSlow(this.#size);
    this.#made.add(fresh);
    return fresh;
  }

  /** One more file holds `buffer` (frozen from now on; its first holder counts too). */
  share(buffer: Buffer): void {
    this.#holders.set(buffer, (this.#holders.get(buffer) ?? 1) + 1);
  }

  isFrozen(buffer: Buffer): boolean {
    return this.#holders.has(buffer);
  }

  /** The hash of a frozen buffer, computed once (its bytes never change while frozen). */
  hashOf(buffer: Buffer, compute: (bytes: Buffer) => string): string {
    let hash = this.#hashes.get(buffer);
    if (hash === undefined) {
      hash = compute(buffer);
      this.#hashes.set(buffer, hash);
    }
    return hash;
  }

  /** A holder is done with `buffer`: the last one hands a pool buffer back; anything else goes to the GC. */
  give(buffer: Buffer): void {
    const holders = this.#holders.get(buffer);
    if (holders !== undefined) {
      if (holders > 1) {
        this.#holders.set(buffer, holders - 1);
        return;
      }
      this.#holders.delete(buffer);
      this.#hashes.delete(buffer);
    }
    if (!this.#made.has(buffer)) return;
    this.#inUse--;
    if (this.#idle.length < this.#keep) this.#idle.push(buffer);
  }
}

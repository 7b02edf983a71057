/**
 * A pool of chunk-sized buffers for the write buffer. Fresh large Buffers cost
 * page faults on first touch (~260 ms per 64 MiB in this VM); reusing them
 * does not. Up to `keep` idle buffers are retained; the rest go to the GC.
 * Only buffers the pool made come back to it: a write buffer may also hold
 * a binding's own request buffer, or a compacted copy.
 */
export class BufferPool {
  readonly #size: number;
  readonly #keep: number;
  readonly #idle: Buffer[] = [];
  readonly #made = new WeakSet<Buffer>();
  readonly #frozen = new WeakSet<Buffer>();
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

  /** A buffer of `size` bytes with unspecified contents. */
  take(): Buffer {
    this.#inUse++;
    const buffer = this.#idle.pop();
    if (buffer !== undefined) return buffer;
    const fresh = Buffer.allocUnsafeSlow(this.#size);
    this.#made.add(fresh);
    return fresh;
  }

  owns(buffer: Buffer): boolean {
    return this.#made.has(buffer);
  }

  /**
   * Marks a buffer as shared by several files (copy_file_range of a dirty
   * chunk): it is never written in place again and never comes back to the
   * pool; whoever writes to the chunk copies it first.
   */
  freeze(buffer: Buffer): void {
    if (this.#made.delete(buffer)) this.#inUse--;
    this.#frozen.add(buffer);
  }

  isFrozen(buffer: Buffer): boolean {
    return this.#frozen.has(buffer);
  }

  /** Takes back a buffer of its own; anything else is left to the GC. */
  give(buffer: Buffer): void {
    if (!this.#made.has(buffer)) return;
    this.#inUse--;
    if (this.#idle.length < this.#keep) this.#idle.push(buffer);
  }
}

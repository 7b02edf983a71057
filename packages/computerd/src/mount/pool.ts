/**
 * A pool of chunk-sized buffers for the write buffer. Fresh large Buffers cost
 * page faults on first touch (~260 ms per 64 MiB in this VM); reusing them
 * does not. Up to `keep` idle buffers are retained; the rest go to the GC.
 */
export class BufferPool {
  readonly #size: number;
  readonly #keep: number;
  readonly #idle: Buffer[] = [];
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
    return this.#idle.pop() ?? Buffer.allocUnsafeSlow(this.#size);
  }

  give(buffer: Buffer): void {
    this.#inUse--;
    if (this.#idle.length < this.#keep) this.#idle.push(buffer);
  }
}

/**
 * A FIFO of async jobs for one backend: push, pull and each half of an exec
 * bracket run one after another. A job that fails rejects its own caller
 * only; the queue moves on (a tail promise that swallows the failure).
 */
export class SyncQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job);
    this.#tail = result.catch(() => {});
    return result;
  }
}

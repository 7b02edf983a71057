/**
 * A deadline on one promise, for both ends of the wire: the Durable Object
 * waiting for computerd to dial back or answer a probe, and computerd waiting
 * for a FUSE mount to come up or go away. One copy, so both fail the same way.
 */

/** Settles as `promise` does, or rejects with `new Error(message)` once `ms` passed; the timer never outlives it. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

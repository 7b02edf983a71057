/**
 * Waiting in computerd's Node tests. `waitFor` polls the condition a test
 * needs, with a deadline, so the test is neither slow on a fast machine nor
 * flaky on a loaded one (`packages/computer/test/wait.ts` is the same helper
 * for the Durable Object side; the packages do not import each other's tests).
 * `absenceWindow` is the one fixed wait: a negative check has no condition to
 * poll, since what it waits for is something not happening.
 */

/** Polls `condition` until it holds; throws naming `what` once `timeoutMs` passed. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits a fixed `ms` in which something must NOT happen (no more runs, no
 * runaway output). Pick `ms` well above the time it would take if it did
 * happen: a too-short window lets a regression pass, never fails a good run.
 */
export function absenceWindow(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

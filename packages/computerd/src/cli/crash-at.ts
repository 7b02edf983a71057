/**
 * A fault for crash tests, at an exact step: `COMPUTERD_CRASH_AT=<method>:<n>`
 * ends the daemon at once (exit 137, no unmount, no goodbye on any socket)
 * when the sync peer receives its n-th `<method>` call, before serving it.
 * Not a SIGKILL to itself: as pid 1 of its namespace (the local container
 * host, a container) the kernel would drop it. `pushObjects:2` dies with one blob batch of a push
 * staged and the push itself never applied; `fetchObjects:1` dies after a
 * pull listed its entries and before any blob went out. A test that arms it
 * fails if that path regresses, instead of passing wherever a timed kill lands.
 */
import type { SyncRPC } from "@cloudflare/dofs/sync";

export const CRASH_METHODS = [
  "hasObjects",
  "pushObjects",
  "push",
  "fetchChanges",
  "fetchObjects",
  "watermarks",
] as const;
export type CrashMethod = (typeof CRASH_METHODS)[number];

export interface CrashAt {
  method: CrashMethod;
  /** 1-based: the call that never returns. */
  call: number;
}

/** `peer` with the fault armed: its other methods, and the calls before the n-th, are untouched. */
export function withCrashAt<T extends SyncRPC>(peer: T, crash: CrashAt, log: (line: string) => void): T {
  let calls = 0;
  const original = peer[crash.method].bind(peer) as (...args: unknown[]) => unknown;
  Object.defineProperty(peer, crash.method, {
    configurable: true,
    value: (...args: unknown[]) => {
      calls += 1;
      if (calls === crash.call) {
        log(`COMPUTERD_CRASH_AT=${crash.method}:${crash.call}: the daemon dies here`);
        // The `exit` handler still SIGKILLs the commands' groups, as the kernel does when a container's pid 1 dies.
        process.exit(137);
      }
      return original(...args);
    },
  });
  return peer;
}

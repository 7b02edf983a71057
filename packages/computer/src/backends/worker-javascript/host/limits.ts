/**
 * Bookkeeping of one execution's capability calls: how many run at once, how
 * many there were, how many bytes went each way, and the deadline of each.
 * Closing it refuses new calls; `settled()` waits for the accepted ones.
 */

import { utf8Length } from "../protocol/stdio.js";
import type { ResolvedOptions } from "./options.js";

export class CapabilityLimitError extends Error {
  override name = "Error";
  readonly code: string;

  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

/** Approximate wire size of a call's arguments or result: text and bytes exactly, the rest by shape. */
export function payloadBytes(value: unknown, seen = new Set<object>()): number {
  if (typeof value === "string") return utf8Length(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value === null || typeof value !== "object") return 8;
  if (seen.has(value)) return 0;
  seen.add(value);
  let total = 2;
  for (const [key, child] of Object.entries(value)) total += utf8Length(key) + payloadBytes(child, seen);
  return total;
}

export interface CallTicket {
  signal: AbortSignal;
  deadline: number;
}

export class CallLimits {
  readonly #options: ResolvedOptions;
  readonly #now: () => number;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #controllers = new Set<AbortController>();
  #calls = 0;
  #requestBytes = 0;
  #responseBytes = 0;
  #closed = false;
  #closedReason = "";

  constructor(options: ResolvedOptions, now: () => number) {
    this.#options = options;
    this.#now = now;
  }

  get accepted(): number {
    return this.#calls;
  }

  /**
   * Runs one call within the limits. Throws CapabilityLimitError when a
   * limit refuses it; the body's own errors pass through.
   */
  async run<T>(label: string, args: unknown, body: (ticket: CallTicket) => Promise<T>): Promise<T> {
    const options = this.#options;
    if (this.#closed) throw new CapabilityLimitError("ECANCELED", `${this.#closedReason}, ${label}`);
    if (this.#inFlight.size >= options.maxConcurrentCapabilityCalls) {
      throw new CapabilityLimitError(
        "EBUSY",
        `more than ${options.maxConcurrentCapabilityCalls} capability calls at once, ${label}`,
      );
    }
    if (this.#calls >= options.maxCapabilityCalls) {
      throw new CapabilityLimitError("ELIMIT", `more than ${options.maxCapabilityCalls} capability calls, ${label}`);
    }
    const size = payloadBytes(args);
    if (size > options.maxCapabilityBytes) {
      throw new CapabilityLimitError(
        "E2BIG",
        `request over maxCapabilityBytes (${options.maxCapabilityBytes}), ${label}`,
      );
    }
    if (this.#requestBytes + size > options.maxCapabilityRequestBytes) {
      throw new CapabilityLimitError(
        "E2BIG",
        `requests over maxCapabilityRequestBytes (${options.maxCapabilityRequestBytes}), ${label}`,
      );
    }
    this.#calls += 1;
    this.#requestBytes += size;
    const controller = new AbortController();
    const deadline = this.#now() + options.maxHostCallMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(
          new CapabilityLimitError("ETIMEDOUT", `over maxHostCallMs (${options.maxHostCallMs}), ${label}`),
        );
        reject(controller.signal.reason);
      }, options.maxHostCallMs);
    });
    this.#controllers.add(controller);
    const work = Promise.race([body({ signal: controller.signal, deadline }), expired]);
    const tracked = work.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(tracked);
    try {
      const value = await work;
      const out = payloadBytes(value);
      if (out > options.maxCapabilityBytes) {
        throw new CapabilityLimitError(
          "E2BIG",
          `response over maxCapabilityBytes (${options.maxCapabilityBytes}), ${label}`,
        );
      }
      if (this.#responseBytes + out > options.maxCapabilityResponseBytes) {
        throw new CapabilityLimitError(
          "E2BIG",
          `responses over maxCapabilityResponseBytes (${options.maxCapabilityResponseBytes}), ${label}`,
        );
      }
      this.#responseBytes += out;
      return value;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.#controllers.delete(controller);
      this.#inFlight.delete(tracked);
    }
  }

  /** Refuses new calls and aborts the signals of running ones. */
  close(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedReason = reason;
    for (const controller of this.#controllers) controller.abort(new CapabilityLimitError("ECANCELED", reason));
  }

  /** Resolves once every accepted call has settled (each is bounded by maxHostCallMs). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }
}

/**
 * Busy polling: while FUSE requests keep coming, keep the CPUs from going
 * to sleep between them.
 *
 * A FUSE request is a ping-pong: the caller sleeps until the daemon
 * answers, the daemon sleeps until the next request. In a virtual machine a
 * sleeping vCPU halts, and waking it (an IPI through the hypervisor) can
 * cost more than the request itself: on this project's 2-vCPU Firecracker
 * machines (nested virtualization, guest halt-polling off) a `stat` that
 * reaches the daemon took 53 µs with idle CPUs and 12–16 µs with polling
 * ones (bench/fuse-floor.mjs). Two ways, best first:
 *
 * - `qos`: a CPU latency request of 0 µs through `/dev/cpu_dma_latency`
 *   (the kernel's PM QoS interface), held while requests arrive and
 *   released after IDLE_RELEASE_MS without one. The cpuidle governor then
 *   polls instead of halting on every CPU, so the caller's wake-up is cheap
 *   too. Needs write access to the device (root, outside most containers).
 * - `spin`: after the last queued request is answered, the daemon keeps
 *   reading `/dev/fuse` for up to `spinMicros` before it returns to its
 *   loop's epoll, so its own vCPU never halts inside a burst. Needs
 *   nothing; the caller's wake-up still costs a halt exit. A spin that
 *   finds nothing makes the next ones wait until requests come close
 *   together again, so a slow trickle costs no CPU.
 *
 * `auto` takes `qos` where the device can be written and `spin` elsewhere.
 * Requests apart, nothing spins: the latency request is released and the
 * loop sleeps in epoll.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Logger } from "../../log/logger.js";

export type BusyPollSetting = "auto" | "qos" | "spin" | "off";

/** How long the latency request outlives the last request: a burst's pauses (a tool's own work) keep it. */
export const IDLE_RELEASE_MS = 20;
export const DEFAULT_SPIN_MICROS = 50;
/** Spins in a row that found nothing before spinning waits for requests to come close together again. */
const MISSES_BEFORE_REST = 2;
const LATENCY_DEVICE = "/dev/cpu_dma_latency";
/** The request written while busy (0 µs: poll, never halt) and when idle (the kernel's "no constraint"). */
const BUSY = Buffer.from(new Int32Array([0]).buffer);
const IDLE = Buffer.from(new Int32Array([2_000_000_000]).buffer);

export interface BusyPollOptions {
  setting: BusyPollSetting;
  spinMicros: number;
  /** The latency device (tests point it at a plain file). */
  device?: string;
}

export class BusyPoll {
  /** What runs: `qos`, `spin` or `off` (`auto` resolved). */
  readonly mode: "qos" | "spin" | "off";
  readonly #spinMs: number;
  #fd: number | undefined;
  #held = false;
  #requests = 0;
  #seen = 0;
  #timer: NodeJS.Timeout | undefined;
  #misses = 0;
  /** When the loop last went back to sleep (performance.now()). */
  #idleSince = 0;
  /** Counters for `stats()`: latency requests taken, spins that found a request, spins that found none. */
  holds = 0;
  spinHits = 0;
  spinMisses = 0;

  constructor(options: BusyPollOptions, log?: Logger) {
    this.#spinMs = options.spinMicros / 1000;
    let mode: BusyPoll["mode"] = options.setting === "auto" ? "qos" : options.setting;
    if (mode === "qos") {
      try {
        this.#fd = openSync(options.device ?? LATENCY_DEVICE, "w");
        writeSync(this.#fd, IDLE);
      } catch (error) {
        if (this.#fd !== undefined) closeSync(this.#fd);
        this.#fd = undefined;
        const reason = (error as NodeJS.ErrnoException).code ?? String(error);
        if (options.setting === "qos") log?.error(`busy polling: ${LATENCY_DEVICE} is not writable (${reason}); off`);
        mode = options.setting === "qos" ? "off" : "spin";
      }
    }
    if (mode === "spin" && this.#spinMs <= 0) mode = "off";
    this.mode = mode;
  }

  /** A request arrived (called once per wake-up of the session's loop). */
  busy(): void {
    this.#requests++;
    // After a run of empty spins, spin again once a request follows the loop's last sleep closely.
    if (this.#misses >= MISSES_BEFORE_REST && performance.now() - this.#idleSince <= 4 * this.#spinMs) {
      this.#misses = 0;
    }
    if (this.#fd === undefined || this.#held) return;
    writeSync(this.#fd, BUSY);
    this.#held = true;
    this.holds++;
    this.#seen = this.#requests;
    this.#timer = setInterval(this.#check, IDLE_RELEASE_MS);
    this.#timer.unref();
  }

  /** How long to spin now, in ms: 0 when not spinning, or resting after empty spins. */
  spinBudget(): number {
    return this.mode === "spin" && this.#misses < MISSES_BEFORE_REST ? this.#spinMs : 0;
  }

  /** The loop goes back to sleep without spinning (resting, or not spinning at all). */
  idle(): void {
    if (this.mode === "spin") this.#idleSince = performance.now();
  }

  /** A spin found a request (one more request, as `busy`). */
  hit(): void {
    this.spinHits++;
    this.#misses = 0;
    this.busy();
  }

  /** A spin found nothing in its budget; the loop goes back to sleep. */
  missed(now: number): void {
    this.#idleSince = now;
    this.spinMisses++;
    this.#misses++;
  }

  readonly #check = (): void => {
    if (this.#requests !== this.#seen) {
      this.#seen = this.#requests;
      return;
    }
    this.#release();
  };

  #release(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#fd !== undefined && this.#held) writeSync(this.#fd, IDLE);
    this.#held = false;
  }

  /** Releases the latency request for good (closing the device drops it too). */
  close(): void {
    this.#release();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  stats(): Record<string, number> {
    return { busy_poll_holds: this.holds, busy_poll_spin_hits: this.spinHits, busy_poll_spin_misses: this.spinMisses };
  }
}

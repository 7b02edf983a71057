/**
 * FUSE over io_uring, the kernel driver's faster transport. The kernel keeps
 * one request queue per possible CPU; the daemon registers ring entries on
 * each (native/fuse_uring.c), and a request goes to an entry of its
 * caller's CPU's queue, its reply back with the command that fetches the
 * entry's next request. No read() and no wake-up of a reader per request:
 * on this project's VMs that is most of a request's cost (docs/benchmarks.md).
 *
 * The kernel uses the queues only once every one has an entry, and only for
 * requests that expect a reply: FORGETs, INTERRUPTs and anything queued
 * before then still come through /dev/fuse, which the session keeps reading.
 * The kernel offers io_uring only while the fuse module's `enable_uring`
 * parameter is on (off by default); computerd turns it on where it may
 * (root, the parameter writable) and says so. Anywhere else, or with
 * COMPUTERD_FUSE_URING=off, requests come from /dev/fuse reads as before,
 * and one log line says why.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, constants } from "node:os";
import type { Logger } from "../../log/logger.js";
import type { FuseDev, UringHandle } from "./fuse-dev.js";
import type { Session } from "./session.js";

export const ENABLE_URING = "/sys/module/fuse/parameters/enable_uring";
/**
 * Entries per queue: how many requests of one CPU's callers the daemon may
 * hold at once (ops that answer with a promise keep theirs); more wait in
 * the kernel's queue. Each entry holds a payload of max_write bytes, which
 * stay untouched (not resident) until a request that large comes.
 */
export const ENTRIES_PER_QUEUE = 8;
/** Bytes before an entry's payload where its request's headers are rebuilt (native/fuse_uring.c, GAP). */
const GAP = 168;
/** The kernel's smallest request buffer (FUSE_MIN_READ_BUFFER). */
const MIN_PAYLOAD = 8192;
const PAGE = 4096;
/** How the kernel ends an entry when the connection goes: nothing to say about it. */
const ENDED = new Set([constants.errno.ENOTCONN, constants.errno.ECONNABORTED, constants.errno.ECANCELED]);

/**
 * Makes the kernel offer io_uring to the next connection where it can:
 * undefined when it will, else why not (for the one fallback line).
 */
export function enableUring(log: Logger, parameter = ENABLE_URING): string | undefined {
  let value: string;
  try {
    value = readFileSync(parameter, "utf8").trim();
  } catch {
    return `this kernel has no FUSE over io_uring (no ${parameter})`;
  }
  if (value === "Y") return undefined;
  try {
    writeFileSync(parameter, "Y");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return `${parameter} is not Y and this daemon may not turn it on (${code})`;
  }
  log.info(`FUSE over io_uring: turned on ${parameter} (new FUSE connections may use it)`);
  return undefined;
}

/** The kernel's queue count: one per possible CPU (the highest id in /sys/devices/system/cpu/possible, plus one). */
export function possibleCpus(file = "/sys/devices/system/cpu/possible"): number {
  try {
    const ids = readFileSync(file, "utf8").trim().split(/[,-]/).map(Number);
    const highest = Math.max(...ids);
    if (Number.isInteger(highest) && highest >= 0) return highest + 1;
  } catch {
    // Read below from what the process may use.
  }
  return availableParallelism();
}

export class UringTransport {
  readonly queues: number;
  readonly entries: number;
  readonly #dev: FuseDev;
  readonly #session: Session;
  readonly #log: Logger;
  readonly #buffers: Buffer[];
  /** Per entry, views of its buffer by where a request starts (a handful of op header sizes). */
  readonly #views: Map<number, Buffer>[];
  readonly #completions: Int32Array;
  #handle: UringHandle | undefined;
  /** Entries the kernel ended for another reason than the connection going. */
  lost = 0;

  /** Registers the entries; a string says why the kernel refused (the session stays on /dev/fuse). */
  static open(dev: FuseDev, session: Session, maxWrite: number, log: Logger): UringTransport | string {
    const transport = new UringTransport(dev, session, maxWrite, log);
    const handle = dev.uringOpen(
      session.fd,
      transport.queues,
      transport.#buffers,
      transport.#completions,
      transport.#onRequests,
    );
    if (typeof handle === "number") {
      const name = Object.entries(constants.errno).find(([, value]) => value === -handle)?.[0] ?? `errno ${-handle}`;
      return `the kernel refused the ring's entries (${name})`;
    }
    transport.#handle = handle;
    session.useUring({
      commit: transport.#commit,
      ready: () => dev.uringReady(handle) > 0,
      drain: () => dev.uringDrain(handle),
    });
    return transport;
  }

  private constructor(dev: FuseDev, session: Session, maxWrite: number, log: Logger) {
    this.#dev = dev;
    this.#session = session;
    this.#log = log;
    this.queues = possibleCpus();
    this.entries = this.queues * ENTRIES_PER_QUEUE;
    // At least what the kernel asks of a payload: max_write, max_pages' worth of pages, FUSE_MIN_READ_BUFFER.
    const payload = Math.max(MIN_PAYLOAD, Math.ceil(maxWrite / PAGE) * PAGE);
    this.#buffers = Array.from({ length: this.entries }, () => Buffer.allocUnsafeSlow(GAP + payload));
    this.#views = this.#buffers.map(() => new Map());
    this.#completions = new Int32Array(3 * this.entries);
  }

  readonly #onRequests = (count: number): void => {
    const completions = this.#completions;
    for (let i = 0; i < count; i++) {
      const entry = completions[3 * i] as number;
      const start = completions[3 * i + 1] as number;
      const length = completions[3 * i + 2] as number;
      if (length < 0) {
        this.#ended(-length);
        continue;
      }
      const views = this.#views[entry] as Map<number, Buffer>;
      let input = views.get(start);
      if (input === undefined) {
        input = (this.#buffers[entry] as Buffer).subarray(start);
        views.set(start, input);
      }
      this.#session.serve(input, length, entry);
    }
    this.#session.served();
  };

  readonly #commit = (entry: number, out: Buffer, length: number): number => {
    if (this.#handle === undefined) return -constants.errno.ENOTCONN;
    return this.#dev.uringCommit(this.#handle, entry, out, length);
  };

  #ended(errno: number): void {
    if (ENDED.has(errno)) return;
    this.lost++;
    this.#log.error(`FUSE over io_uring: the kernel ended a ring entry (errno ${errno}); ${this.lost} lost`);
  }

  close(): void {
    if (this.#handle !== undefined) this.#dev.uringClose(this.#handle);
    this.#handle = undefined;
  }
}

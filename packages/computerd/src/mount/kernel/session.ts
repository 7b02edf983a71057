/**
 * One FUSE connection on the daemon's own loop: uv_poll wakes `#drain`,
 * which reads queued requests one by one into a single pooled buffer and
 * hands each to its op. With busy polling (busy-poll.ts) set to spin, the
 * loop's turn ends with `#spin`, which keeps reading for a few µs before
 * the loop goes back to sleep. An op either answers at once (it wrote its reply
 * body into `out` and returns the body's length) or returns a promise of an
 * encoder that writes the body when the reply goes out, so no two replies
 * ever share `out`. Inputs are parsed before an op's first await: the
 * buffer is the next request's by then.
 *
 * With FUSE over io_uring (uring.ts) most requests come from ring entries
 * instead (`serve`), and their replies go back through the entry
 * (`Request.entry`); FORGETs, INTERRUPTs and notifications stay on
 * /dev/fuse, which is read as before.
 */
import { constants } from "node:os";
import type { Logger } from "../../log/logger.js";
import { errnoOf } from "../errno.js";
import type { FuseTrace } from "../trace.js";
import type { BusyPoll } from "./busy-poll.js";
import type { FuseDev, PollHandle } from "./fuse-dev.js";
import { IN_HEADER, OUT_HEADER, readU64, writeNotifyHeader } from "./protocol.js";

const EAGAIN = -constants.errno.EAGAIN;
const ENODEV = -constants.errno.ENODEV;
const ENOENT = -constants.errno.ENOENT;
export const ENOSYS = -constants.errno.ENOSYS;
/** Requests read per wake-up before the loop gets a turn (uv_poll is level-triggered: the rest wake it again). */
const BATCH = 64;

export interface Request {
  readonly opcode: number;
  readonly uniqueLo: number;
  readonly uniqueHi: number;
  readonly nodeid: number;
  readonly uid: number;
  readonly gid: number;
  /** The caller's thread id (0 when the kernel asks on its own behalf). */
  readonly pid: number;
  /** Total length, header included. */
  readonly length: number;
  /** The io_uring entry the request came on, whose commit carries the reply; -1 for /dev/fuse. */
  readonly entry: number;
}

/** The io_uring transport as the session uses it (uring.ts). */
export interface Ring {
  /** Sends a reply (`length` bytes of `out`) through entry `entry`: 0 or a negative errno. */
  commit(entry: number, out: Buffer, length: number): number;
  /** Whether requests wait on the ring (no syscall). */
  ready(): boolean;
  /** Serves what waits on the ring now. */
  drain(): void;
}

/** A reply body's length in `out` (written already), or an encoder that writes it when the reply goes out. */
export type Answer = number | ((out: Buffer) => number);
/** undefined: the request takes no reply (FORGET, INTERRUPT). */
export type Handler = (request: Request, input: Buffer) => Answer | Promise<Answer> | undefined;

export class Session {
  readonly fd: number;
  /** The request buffer: one request at a time, valid until the op's first await. */
  readonly input: Buffer;
  /** The reply buffer; bodies start at OUT_HEADER. */
  readonly out: Buffer;
  readonly #dev: FuseDev;
  readonly #log: Logger;
  readonly #trace: FuseTrace | undefined;
  readonly #busyPoll: BusyPoll | undefined;
  #spinQueued = false;
  readonly #handlers: (Handler | undefined)[] = [];
  readonly #names: string[] = [];
  #poll: PollHandle | undefined;
  #ended: (() => void) | undefined;
  #ring: Ring | undefined;
  readonly ended: Promise<void>;
  requests = 0;
  /** Of `requests`, those an io_uring entry brought. */
  uringRequests = 0;

  constructor(
    dev: FuseDev,
    fd: number,
    maxWrite: number,
    log: Logger,
    trace: FuseTrace | undefined,
    busyPoll?: BusyPoll,
  ) {
    this.#dev = dev;
    this.fd = fd;
    this.#log = log;
    this.#trace = trace;
    this.#busyPoll = busyPoll;
    // The kernel needs room for a whole WRITE: header, fuse_write_in and max_write bytes.
    this.input = Buffer.allocUnsafeSlow(maxWrite + 4096);
    this.out = Buffer.allocUnsafeSlow(maxWrite + 4096);
    this.ended = new Promise((resolve) => (this.#ended = resolve));
  }

  on(opcode: number, name: string, handler: Handler): void {
    this.#handlers[opcode] = handler;
    this.#names[opcode] = name;
  }

  /** Runs after every reply is written (what may only follow it: kernel/relatime.ts). */
  onReplied: (() => void) | undefined;

  start(): void {
    this.#poll = this.#dev.poll(this.fd, this.#drain);
  }

  /** From now on requests also come through `serve`, answered through `ring`. */
  useUring(ring: Ring): void {
    this.#ring = ring;
  }

  /** Answers a request an io_uring entry brought: `length` bytes of `input`, laid out as /dev/fuse's. */
  serve(input: Buffer, length: number, entry: number): void {
    this.#busyPoll?.busy();
    this.uringRequests++;
    this.#dispatch(input, length, entry);
  }

  /** After the ring's requests of one wake-up: spin for the next ones, as after a /dev/fuse drain. */
  served(): void {
    this.#queueSpin();
  }

  /** Writes a notification (code, payload of `length` bytes in `body`) from a worker thread: 0 or -errno. */
  notify(code: number, body: Buffer, length: number): Promise<number> {
    const message = Buffer.allocUnsafe(OUT_HEADER + length);
    writeNotifyHeader(message, 0, code, length);
    body.copy(message, OUT_HEADER, 0, length);
    return this.notifyAll(message, message.length);
  }

  /**
   * Writes the whole notifications in the first `length` bytes of `messages`
   * (each framed by writeNotifyHeader) in one job of a worker thread, one
   * write() each: 0, or the first -errno (the others are still written).
   */
  notifyAll(messages: Buffer, length: number): Promise<number> {
    return new Promise((resolve) =>
      this.#dev.writeAsync(this.fd, messages, length, (result) => resolve(Math.min(result, 0))),
    );
  }

  stop(): void {
    if (this.#poll !== undefined) this.#dev.pollStop(this.#poll);
    this.#poll = undefined;
    this.#ended?.();
  }

  readonly #drain = (): void => {
    this.#busyPoll?.busy();
    for (let i = 0; i < BATCH; i++) {
      const length = this.#dev.read(this.fd, this.input);
      if (length === EAGAIN) {
        this.#queueSpin();
        return;
      }
      if (length < 0) {
        this.#failedRead(length);
        return;
      }
      this.#dispatch(this.input, length, -1);
    }
  };

  /**
   * The spin runs after this turn's microtasks (setImmediate), so the
   * replies of ops that answered with a promise are out before it waits for
   * the requests they lead to.
   */
  #queueSpin(): void {
    if (this.#spinQueued || this.#poll === undefined || this.#busyPoll === undefined) return;
    if (this.#busyPoll.spinBudget() === 0) {
      this.#busyPoll.idle();
      return;
    }
    this.#spinQueued = true;
    setImmediate(this.#spin);
  }

  readonly #spin = (): void => {
    this.#spinQueued = false;
    if (this.#poll === undefined) return;
    const busyPoll = this.#busyPoll as BusyPoll;
    let deadline = performance.now() + busyPoll.spinBudget();
    const ring = this.#ring;
    for (;;) {
      if (ring?.ready()) {
        busyPoll.hit();
        // Their promise answers (and this spin's next round) come after this turn's microtasks.
        ring.drain();
        return;
      }
      const length = this.#dev.read(this.fd, this.input);
      if (length === EAGAIN) {
        const now = performance.now();
        if (now < deadline) continue;
        busyPoll.missed(now);
        return;
      }
      if (length < 0) {
        this.#failedRead(length);
        return;
      }
      busyPoll.hit();
      if (!this.#dispatch(this.input, length, -1)) {
        // A promise answers it: spin again once it has.
        this.#queueSpin();
        return;
      }
      deadline = performance.now() + busyPoll.spinBudget();
    }
  };

  #failedRead(length: number): void {
    if (length !== ENODEV) this.#log.error(`reading /dev/fuse failed: errno ${-length}`);
    this.stop();
  }

  /** Answers one request; false when its answer is still to come (a promise). */
  #dispatch(input: Buffer, length: number, entry: number): boolean {
    const request: Request = {
      length,
      entry,
      opcode: input.readUInt32LE(4),
      uniqueLo: input.readUInt32LE(8),
      uniqueHi: input.readUInt32LE(12),
      nodeid: readU64(input, 16),
      uid: input.readUInt32LE(24),
      gid: input.readUInt32LE(28),
      pid: input.readUInt32LE(32),
    };
    this.requests++;
    const handler = this.#handlers[request.opcode];
    if (handler === undefined) {
      this.#replyError(request, ENOSYS);
      return true;
    }
    const started = this.#trace ? performance.now() : 0;
    let answer: Answer | Promise<Answer> | undefined;
    try {
      answer = handler(request, input);
    } catch (error) {
      this.#finish(request, started, errnoOf(error));
      return true;
    }
    if (answer === undefined) return true;
    if (typeof answer === "number") {
      this.#finish(request, started, 0, answer);
    } else if (typeof answer === "function") {
      this.#finish(request, started, 0, answer(this.out));
    } else {
      answer.then(
        (done) => this.#finish(request, started, 0, typeof done === "number" ? done : done(this.out)),
        (error) => this.#finish(request, started, errnoOf(error)),
      );
      return false;
    }
    return true;
  }

  #finish(request: Request, started: number, errno: number, bodyLength = 0): void {
    if (this.#trace) this.#trace.record(this.#names[request.opcode] ?? "?", performance.now() - started, errno);
    if (errno !== 0) this.#replyError(request, errno);
    else this.#reply(request, bodyLength);
    this.onReplied?.();
  }

  #replyError(request: Request, errno: number): void {
    const out = this.out;
    out.writeUInt32LE(OUT_HEADER, 0);
    out.writeInt32LE(errno, 4);
    out.writeUInt32LE(request.uniqueLo, 8);
    out.writeUInt32LE(request.uniqueHi, 12);
    this.#write(request, OUT_HEADER);
  }

  #reply(request: Request, bodyLength: number): void {
    const out = this.out;
    out.writeUInt32LE(OUT_HEADER + bodyLength, 0);
    out.writeInt32LE(0, 4);
    out.writeUInt32LE(request.uniqueLo, 8);
    out.writeUInt32LE(request.uniqueHi, 12);
    this.#write(request, OUT_HEADER + bodyLength);
  }

  #write(request: Request, length: number): void {
    const result =
      request.entry < 0 || this.#ring === undefined
        ? this.#dev.write(this.fd, this.out, length)
        : this.#ring.commit(request.entry, this.out, length);
    // ENOENT: the kernel gave up on the request (interrupted); nothing to do.
    if (result < 0 && result !== ENOENT) {
      this.#log.error(`replying on ${request.entry < 0 ? "/dev/fuse" : "io_uring"} failed: errno ${-result}`);
    }
  }
}

export { IN_HEADER };

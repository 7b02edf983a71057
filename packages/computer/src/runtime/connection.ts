/**
 * The shared, lazy connection to one command backend. Callers share one
 * handle; it is (re)opened on demand, reconciled with the backend's
 * watermarks before anyone can use it, and dropped when it closes. A call
 * that hits a transport error closes that exact handle (by identity) and gets
 * one retry on a fresh connection; anything else passes through and leaves
 * the connection alone.
 */
import type { Database } from "@cloudflare/dofs";
import { reconcileWatermarks } from "@cloudflare/dofs/sync";
import type { BackendHandle, CommandBackend } from "./backend.js";
import { closedError, WorkspaceTransportError } from "./errors.js";
import { isTransportError, safeErrorMessage } from "./transport.js";

export interface RunOptions {
  /**
   * Whether a transport failure inside the call may be retried on a new
   * connection. Defaults to always; exec narrows it (a command that may have
   * started must not run twice).
   */
  replayable?(error: unknown): boolean;
  /** The error to throw for a transport failure that may not be replayed. */
  ambiguous?(error: unknown): Error;
}

export class BackendConnection {
  readonly #backend: CommandBackend;
  readonly #db: Database;
  readonly #now: () => number;
  #current: Promise<BackendHandle> | undefined;
  #handle: BackendHandle | undefined;
  /** Settles when the handle being invalidated has finished closing; new connects wait for it. */
  #closing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(backend: CommandBackend, db: Database, now: () => number) {
    this.#backend = backend;
    this.#db = db;
    this.#now = now;
  }

  get id(): string {
    return this.#backend.id;
  }

  isTransportError(error: unknown): boolean {
    if (error instanceof WorkspaceTransportError) return true;
    return this.#backend.isTransportError ? this.#backend.isTransportError(error) : isTransportError(error);
  }

  /** The shared handle, connecting when there is none. */
  handle(): Promise<BackendHandle> {
    if (this.#closed) return Promise.reject(closedError(`${this.id}.connect`));
    if (!this.#current) {
      const opening = this.#open();
      this.#current = opening;
      opening.catch(() => {
        if (this.#current === opening) this.#current = undefined;
      });
    }
    return this.#current;
  }

  /**
   * Runs `call` on the shared handle. On a transport error the handle is
   * closed and, if the failure is replayable, the call runs once more on a new
   * connection; a second failure reports both causes.
   */
  async run<T>(operation: string, call: (handle: BackendHandle) => Promise<T>, options: RunOptions = {}): Promise<T> {
    let initial: unknown;
    for (let attempt = 1; ; attempt++) {
      let handle: BackendHandle;
      try {
        handle = await this.handle();
      } catch (error) {
        // A failed connect sent nothing, so it is always safe to try again.
        if (attempt === 1 && this.isTransportError(error)) {
          initial = error;
          continue;
        }
        throw attempt === 1 ? error : this.#exhausted(operation, initial, error);
      }
      try {
        return await untilClosed(handle, call(handle), `${this.id} ${operation}`);
      } catch (error) {
        if (!this.isTransportError(error)) throw error;
        await this.invalidate(handle);
        if (options.replayable && !options.replayable(error)) {
          throw options.ambiguous ? options.ambiguous(error) : error;
        }
        if (attempt === 1) {
          initial = error;
          continue;
        }
        throw this.#exhausted(operation, initial, error);
      }
    }
  }

  /** Closes `handle` if it is still the shared one; concurrent callers wait for the close before reconnecting. */
  invalidate(handle: BackendHandle): Promise<void> {
    if (this.#handle !== handle) return this.#closing;
    this.#handle = undefined;
    this.#current = undefined;
    this.#closing = Promise.resolve()
      .then(() => handle.close())
      .catch(() => {});
    return this.#closing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const handle = this.#handle;
    if (handle) await this.invalidate(handle);
    await this.#closing;
  }

  async #open(): Promise<BackendHandle> {
    await this.#closing;
    const handle = await this.#backend.connect();
    try {
      // A backend that lost its store (a restarted container) must be re-baselined before any push or pull.
      if (handle.sync === "remote") {
        await reconcileWatermarks({ db: this.#db, peer: this.id, now: this.#now }, handle.rpc.sync);
      }
    } catch (error) {
      await Promise.resolve(handle.close()).catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await Promise.resolve(handle.close()).catch(() => {});
      throw closedError(`${this.id}.connect`);
    }
    this.#handle = handle;
    handle.closed.then(
      () => this.#dropped(handle),
      () => this.#dropped(handle),
    );
    return handle;
  }

  #dropped(handle: BackendHandle): void {
    if (this.#handle !== handle) return;
    this.#handle = undefined;
    this.#current = undefined;
  }

  #exhausted(operation: string, initial: unknown, last: unknown): WorkspaceTransportError {
    return new WorkspaceTransportError(
      `${this.id} ${operation} failed after 1 reconnect retry: initial=${safeErrorMessage(initial)}; last=${safeErrorMessage(last)}`,
      { backend: this.id, cause: last },
    );
  }
}

/** Per handle: whether it closed, and the calls to fail when it does. */
interface CloseWatch {
  closed: boolean;
  waiters: Set<(what: string) => void>;
}

const watches = new WeakMap<BackendHandle, CloseWatch>();

function watchOf(handle: BackendHandle): CloseWatch {
  let watch = watches.get(handle);
  if (!watch) {
    const created: CloseWatch = { closed: false, waiters: new Set() };
    // A call that fails because of the close rejects with its own, more specific error within a few
    // microtasks; waiting one macrotask lets that error win, and only a call left hanging gets ours.
    const fire = (): void => {
      setTimeout(() => {
        created.closed = true;
        for (const fail of created.waiters) fail("the connection closed");
        created.waiters.clear();
      }, 0);
    };
    handle.closed.then(fire, fire);
    watches.set(handle, created);
    watch = created;
  }
  return watch;
}

/**
 * `promise`, or a transport error once `handle` closes: a call in flight when
 * the socket dies (a killed container) must fail, not wait forever on a reply
 * or a stream that will never come. Each call registers while it runs and
 * leaves when it settles, so a long-lived connection keeps nothing per call.
 */
export function untilClosed<T>(handle: BackendHandle, promise: Promise<T>, what: string): Promise<T> {
  const watch = watchOf(handle);
  return new Promise<T>((resolve, reject) => {
    const fail = (why: string): void => reject(new WorkspaceTransportError(`${what}: ${why} (WebSocket is closed)`));
    if (watch.closed) {
      setTimeout(() => fail("the connection is closed"), 0);
    } else {
      watch.waiters.add(fail);
    }
    promise.then(
      (value) => {
        watch.waiters.delete(fail);
        resolve(value);
      },
      (error: unknown) => {
        watch.waiters.delete(fail);
        reject(error);
      },
    );
  });
}

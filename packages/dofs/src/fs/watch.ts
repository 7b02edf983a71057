/**
 * `provider.watch(path)`: node:fs-style change notifications, by polling.
 * SQLite tells no one about a write, so a watcher looks at the store's rev
 * every `interval` milliseconds and, when it moved, plans the changes since
 * the rev it last saw (the plan sync uses: one entry per path, tombstones for
 * deletes). Each changed path in scope is one `"change"` event, named
 * relative to the watched path (`""` for the path itself); a path that no
 * longer exists is a `"rename"`, as the original reports.
 *
 * The emitter is node:events' `EventEmitter`, reached at call time through
 * `process.getBuiltinModule` so dofs loads without `nodejs_compat`; without
 * it, `watch` is ENOSYS. Its type is spelled out here (`WatchEmitter`)
 * rather than imported, so dofs' types need no @types/node.
 */
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { currentRev } from "../schema.js";
import { planChanges, readChange } from "../sync/coalesce.js";

export interface WatchOptions {
  /** Report changes anywhere below the path, not only the path and its direct children. */
  recursive?: boolean;
  /** Closes the watcher when aborted. */
  signal?: AbortSignal;
  /** Polling period in milliseconds (default: the provider's `watchIntervalMs`). */
  interval?: number;
}

export interface WatchEvent {
  eventType: "rename" | "change";
  filename: string;
}

type Listener = (...args: never[]) => void;

/** The members of node:events' `EventEmitter`, which a watcher is. */
export interface WatchEmitter {
  addListener(eventName: string | symbol, listener: Listener): this;
  on(eventName: string | symbol, listener: Listener): this;
  once(eventName: string | symbol, listener: Listener): this;
  prependListener(eventName: string | symbol, listener: Listener): this;
  prependOnceListener(eventName: string | symbol, listener: Listener): this;
  removeListener(eventName: string | symbol, listener: Listener): this;
  off(eventName: string | symbol, listener: Listener): this;
  removeAllListeners(eventName?: string | symbol): this;
  setMaxListeners(n: number): this;
  getMaxListeners(): number;
  listeners(eventName: string | symbol): Listener[];
  rawListeners(eventName: string | symbol): Listener[];
  emit(eventName: string | symbol, ...args: unknown[]): boolean;
  listenerCount(eventName: string | symbol, listener?: Listener): number;
  eventNames(): (string | symbol)[];
}

/** Emits `("change", eventType, filename)`, `("error", error)` and `("close")`. */
export interface WatchHandle extends WatchEmitter {
  close(): void;
}

function eventEmitter(path: string): new () => WatchEmitter {
  const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  const events = process?.getBuiltinModule?.("node:events") as { EventEmitter: new () => WatchEmitter } | undefined;
  if (events === undefined) {
    throw fsError("ENOSYS", "watch", path, "watching needs node:events (workerd's nodejs_compat flag)");
  }
  return events.EventEmitter;
}

/** Starts a polling watcher of `path` (already normalized) over `db`. */
export function watchPath(db: Database, path: string, options: WatchOptions, defaultIntervalMs: number): WatchHandle {
  const interval = options.interval ?? defaultIntervalMs;
  if (!Number.isFinite(interval) || interval <= 0) {
    throw fsError("EINVAL", "watch", path, `interval must be a positive number of milliseconds, got ${interval}`);
  }
  const Emitter = eventEmitter(path);
  const watcher = new Emitter() as WatchHandle;
  const inScope = scopeOf(path, options.recursive === true);
  let seen = currentRev(db);
  let closed = false;

  const poll = (): void => {
    if (closed) return;
    try {
      const rev = currentRev(db);
      if (rev === seen) return;
      const plan = planChanges(db, { rev: seen, path: null }, { rev, path: null });
      seen = rev;
      for (const planned of plan) {
        const name = inScope(planned.path);
        if (name === undefined) continue;
        const eventType = readChange(db, planned)?.kind === "delete" ? "rename" : "change";
        watcher.emit("change", eventType, name);
      }
    } catch (error) {
      // An unheard "error" would throw out of the timer and take the isolate down: stop instead.
      if (watcher.listenerCount("error") > 0) watcher.emit("error", error);
      else watcher.close();
    }
  };

  const timer = setInterval(poll, interval);
  (timer as { unref?: () => void }).unref?.();
  const onAbort = (): void => watcher.close();
  watcher.close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    options.signal?.removeEventListener("abort", onAbort);
    watcher.emit("close");
  };
  // Closed on the next microtask, so listeners attached right after `watch` returns hear "close".
  if (options.signal?.aborted) queueMicrotask(() => watcher.close());
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return watcher;
}

/** The name a changed path is reported under, or undefined when it is out of scope. */
function scopeOf(watched: string, recursive: boolean): (path: string) => string | undefined {
  const prefix = watched === "/" ? "/" : `${watched}/`;
  return (path) => {
    if (path === watched) return "";
    if (!path.startsWith(prefix)) return undefined;
    const name = path.slice(prefix.length);
    return recursive || !name.includes("/") ? name : undefined;
  };
}

/** The watcher's events as an async iterable; ending the iteration closes the watcher. */
export function watchEvents(watcher: WatchHandle): AsyncIterableIterator<WatchEvent> {
  const queued: WatchEvent[] = [];
  const waiting: ((result: IteratorResult<WatchEvent>) => void)[] = [];
  let failure: unknown;
  let done = false;
  const finish = (): void => {
    done = true;
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
  };
  watcher.on("change", (eventType: WatchEvent["eventType"], filename: string) => {
    const event = { eventType, filename };
    const resolve = waiting.shift();
    if (resolve) resolve({ value: event, done: false });
    else queued.push(event);
  });
  watcher.on("error", (error: unknown) => {
    failure = error;
    watcher.close();
  });
  watcher.on("close", finish);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      const event = queued.shift();
      if (event) return Promise.resolve({ value: event, done: false });
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    async return() {
      watcher.close();
      return { value: undefined, done: true };
    },
  };
}

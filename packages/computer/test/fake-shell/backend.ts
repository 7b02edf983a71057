/**
 * `FakeShellBackend`, a test-only helper (not part of the package): a command
 * backend with no container. Its "container side" is
 * a second dofs store (by default in prefixed tables of the workspace's own
 * SQLite), served by the real `SyncPeer`, and its shell is `TestRunner`. The
 * runtime drives it exactly as it drives computerd — connect, reconcile,
 * push, exec, pull — so the runtime's tests exercise the real sync bracket
 * without a process or a socket. (The public `TestBackend` is the original's:
 * it connects to a real computerd, src/backends/running-computerd/backend.ts.)
 *
 * For the caller's failure tests it can replace its runtime (a restarted
 * container: new runtime id, empty store, executions gone) and inject faults
 * per operation, and it counts every call.
 *
 * There is no `close()`: the "container" outlives any one Workspace, as a
 * real one outlives its Durable Object, and one FakeShellBackend may serve several
 * Workspaces over the same storage (a DO's next incarnation). Each Workspace
 * closes its own handle; `runner.dispose()` stops stray executions.
 */
import type { Database } from "@cloudflare/dofs";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { SyncPeer, type SyncRPC } from "@cloudflare/dofs/sync";
import type {
  BackendContext,
  BackendExec,
  BackendHandle,
  CommandBackend,
  ShellRpcLike,
  WireExecEvent,
} from "../../src/runtime/backend.js";
import { dropPrefixedTables, prefixedDatabase } from "./prefixed-database.js";
import { TestRunner, type TestRunnerOptions } from "./runner.js";

export const FAKE_SHELL_BACKEND_OPS = [
  "connect",
  "sync.push",
  "sync.fetchChanges",
  "sync.watermarks",
  "sync.pushObjects",
  "sync.fetchObjects",
  "sync.hasObjects",
  "sync.readEntry",
  "shell.exec",
  "shell.getExec",
  "shell.killExec",
  "shell.disposeExec",
] as const;

export type FakeShellBackendOp = (typeof FAKE_SHELL_BACKEND_OPS)[number];

/**
 * What an injected fault throws: an error of the caller's, or one of the two
 * transport failures the runtime recognizes. `"transport"` is a dropped socket
 * (the call may or may not have run; the handle is dead afterwards);
 * `"disposed"` is capnweb's error for a call that never left.
 */
export type FakeShellBackendFault = Error | "transport" | "disposed";

export interface FakeShellBackendOptions extends TestRunnerOptions {
  /** Default `"test-shell"`. */
  id?: string;
  /**
   * Opens the peer store; called once per runtime (again after
   * `replaceRuntime`) and expected to return an empty database each time.
   * Default: tables prefixed `tb_<id>_<generation>_` in the workspace's database.
   */
  database?: () => Database;
}

/** Where commands run by default; computerd creates it in its store before it listens. */
const MOUNT_POINT = "/workspace";

const TRANSPORT_MESSAGE = "WebSocket is closed";
const DISPOSED_MESSAGE = "Attempted to use RPC stub after it has been disposed.";

function faultError(fault: FakeShellBackendFault): Error {
  if (fault === "transport") return new Error(TRANSPORT_MESSAGE);
  if (fault === "disposed") return new Error(DISPOSED_MESSAGE);
  return fault;
}

/** One generation of the "container": its id, its store and its shell. */
interface Runtime {
  readonly runtimeId: string;
  readonly prefix: string | undefined;
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly peer: SyncPeer;
  readonly runner: TestRunner;
  readonly handles: Set<HandleState>;
  /** Settles once the mount point exists in the store, as computerd makes it at boot. */
  readonly booted: Promise<void>;
}

/** A live connection's bookkeeping: whether it still works, and the exec streams to break when it goes. */
class HandleState {
  /** Set once the handle is unusable; calls then throw it. */
  failure: Error | undefined;
  readonly streams = new Set<(error: Error) => void>();
  readonly closed: Promise<void>;
  readonly #resolveClosed: () => void;

  constructor() {
    let resolveClosed = (): void => {};
    this.closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    this.#resolveClosed = resolveClosed;
  }

  /**
   * Ends the connection: later calls throw `callError`; open exec streams
   * error with `streamError`, or, without one, are left to drain what they
   * already hold.
   */
  end(callError: Error, streamError?: Error): void {
    if (this.failure !== undefined) return;
    this.failure = callError;
    if (streamError !== undefined) for (const fail of this.streams) fail(streamError);
    this.streams.clear();
    this.#resolveClosed();
  }
}

export class FakeShellBackend implements CommandBackend {
  readonly kind = "command";
  readonly id: string;
  readonly type = "test";
  readonly #options: FakeShellBackendOptions;
  #context: BackendContext | undefined;
  #generation = 0;
  /** Whether tables left by an earlier instance on the same database have been dropped. */
  #swept = false;
  #runtime: Runtime | undefined;
  readonly #queued = new Map<FakeShellBackendOp, { fault: FakeShellBackendFault; times: number }[]>();
  readonly #always = new Map<FakeShellBackendOp, FakeShellBackendFault>();
  readonly #calls = Object.fromEntries(FAKE_SHELL_BACKEND_OPS.map((op) => [op, 0])) as Record<
    FakeShellBackendOp,
    number
  >;

  constructor(options: FakeShellBackendOptions = {}) {
    this.id = options.id ?? "test-shell";
    this.#options = options;
  }

  attach(context: BackendContext): void {
    this.#context = context;
  }

  /** Calls per operation since construction, faulted ones included. Not reset by `replaceRuntime`. */
  get calls(): Readonly<Record<FakeShellBackendOp, number>> {
    return this.#calls;
  }

  /** The current runtime's id; a new one after every `replaceRuntime`. */
  get runtimeId(): string {
    return this.#current().runtimeId;
  }

  /** The "container side" filesystem: inspect what a command wrote, or change files behind the workspace's back. */
  get peer(): WorkspaceFilesystem {
    return this.#current().fs;
  }

  /** The current runtime's shell, for `running` and `settled()`. */
  get runner(): TestRunner {
    return this.#current().runner;
  }

  async connect(): Promise<BackendHandle> {
    this.#enter("connect");
    const runtime = this.#current();
    await runtime.booted;
    const state = new HandleState();
    runtime.handles.add(state);
    void state.closed.then(() => runtime.handles.delete(state));
    return {
      sync: "remote",
      runtimeId: runtime.runtimeId,
      rpc: { sync: this.#syncFor(runtime.peer, state), shell: this.#shellFor(runtime.runner, state) },
      closed: state.closed,
      close: async () => state.end(new Error(DISPOSED_MESSAGE), new Error(TRANSPORT_MESSAGE)),
    };
  }

  /**
   * The container was replaced: running executions are killed (their open
   * streams still deliver the exit, 137, so the runtime's post-pull meets
   * the new runtime and is fenced), open handles close, the store is
   * dropped, and the next connect meets a new runtime id and an empty store.
   */
  replaceRuntime(): void {
    const old = this.#runtime;
    this.#runtime = undefined;
    this.#generation += 1;
    if (old === undefined) return;
    old.runner.dispose();
    for (const handle of old.handles) handle.end(new Error(DISPOSED_MESSAGE));
    if (old.prefix !== undefined) dropPrefixedTables(this.#requireContext().db, old.prefix);
  }

  /** The next `times` calls of `op` throw `fault` (queued after any earlier `failNext` for the same op). */
  failNext(op: FakeShellBackendOp, fault: FakeShellBackendFault, times = 1): void {
    checkOp(op);
    if (!Number.isSafeInteger(times) || times < 1) throw new TypeError("failNext times must be a positive integer");
    const queue = this.#queued.get(op) ?? [];
    queue.push({ fault, times });
    this.#queued.set(op, queue);
  }

  /** Every call of `op` throws `fault` until `clearFaults()`. Queued `failNext` faults go first. */
  failAll(op: FakeShellBackendOp, fault: FakeShellBackendFault): void {
    checkOp(op);
    this.#always.set(op, fault);
  }

  clearFaults(): void {
    this.#queued.clear();
    this.#always.clear();
  }

  /** Counts a call, then throws an injected fault if one is due. */
  #enter(op: FakeShellBackendOp, state?: HandleState): void {
    if (state?.failure !== undefined) throw state.failure;
    this.#calls[op] += 1;
    const queue = this.#queued.get(op);
    const next = queue?.[0];
    let fault: FakeShellBackendFault | undefined;
    if (queue !== undefined && next !== undefined) {
      fault = next.fault;
      next.times -= 1;
      if (next.times === 0) queue.shift();
    } else {
      fault = this.#always.get(op);
    }
    if (fault === undefined) return;
    const error = faultError(fault);
    // A dropped socket takes the whole connection with it, as it would over capnweb.
    if (fault === "transport" && state !== undefined) state.end(error, error);
    throw error;
  }

  #syncFor(peer: SyncPeer, state: HandleState): SyncRPC {
    const call = async <T>(op: FakeShellBackendOp, body: () => Promise<T>): Promise<T> => {
      this.#enter(op, state);
      return body();
    };
    return {
      push: (request) => call("sync.push", () => peer.push(request)),
      fetchChanges: (request) => call("sync.fetchChanges", () => peer.fetchChanges(request)),
      watermarks: (options) => call("sync.watermarks", () => peer.watermarks(options)),
      readEntry: (path) => call("sync.readEntry", () => peer.readEntry(path)),
      hasObjects: (hashes) => call("sync.hasObjects", () => peer.hasObjects(hashes)),
      // Its stream at once, as a local SyncPeer answers (a fault throws at once too).
      fetchObjects: (hashes) => {
        this.#enter("sync.fetchObjects", state);
        return peer.fetchObjects(hashes);
      },
      pushObjects: (objects) => call("sync.pushObjects", () => peer.pushObjects(objects)),
    };
  }

  #shellFor(runner: TestRunner, state: HandleState): ShellRpcLike {
    const call = async <T>(op: FakeShellBackendOp, body: () => Promise<T>): Promise<T> => {
      this.#enter(op, state);
      return body();
    };
    const guarded = async (op: FakeShellBackendOp, body: () => Promise<BackendExec>): Promise<BackendExec> => {
      const exec = await call(op, body);
      return { id: exec.id, events: guardStream(exec.events, state) };
    };
    return {
      exec: (request) => guarded("shell.exec", () => runner.exec(request)),
      getExec: (request) => guarded("shell.getExec", () => runner.getExec(request)),
      killExec: (request) => call("shell.killExec", () => runner.killExec(request)),
      disposeExec: (request) => call("shell.disposeExec", () => runner.disposeExec(request)),
    };
  }

  #current(): Runtime {
    if (this.#runtime !== undefined) return this.#runtime;
    let db: Database;
    let prefix: string | undefined;
    if (this.#options.database !== undefined) {
      db = this.#options.database();
    } else {
      const main = this.#requireContext().db;
      prefix = `tb_${this.id.replace(/[^A-Za-z0-9]/g, "_")}_${this.#generation}_`;
      if (!this.#swept) dropStaleGenerations(main, this.id);
      this.#swept = true;
      db = prefixedDatabase(main, prefix);
    }
    const now = this.#context?.now ?? Date.now;
    const fs = new WorkspaceFilesystem(db, { now });
    this.#runtime = {
      runtimeId: crypto.randomUUID(),
      prefix,
      db,
      fs,
      peer: new SyncPeer(db, { now }),
      runner: new TestRunner(fs, this.#options),
      handles: new Set(),
      booted: fs.mkdir(MOUNT_POINT, { recursive: true }),
    };
    return this.#runtime;
  }

  #requireContext(): BackendContext {
    if (this.#context === undefined) {
      throw new Error(`FakeShellBackend ${this.id}: attach() it to a Workspace (or pass options.database) before use`);
    }
    return this.#context;
  }
}

function checkOp(op: string): asserts op is FakeShellBackendOp {
  if (!(FAKE_SHELL_BACKEND_OPS as readonly string[]).includes(op))
    throw new TypeError(`unknown FakeShellBackend op: ${op}`);
}

/**
 * A backend object starts as a new container. In a Durable Object the tables
 * of an earlier instance (an evicted isolate) are still there; they belong to
 * a runtime that no longer exists, so they go.
 */
function dropStaleGenerations(db: Database, id: string): void {
  const slug = id.replace(/[^A-Za-z0-9]/g, "_");
  const family = new RegExp(`^_?(tb_${slug}_[0-9]+_)vfs_`);
  const prefixes = new Set<string>();
  for (const row of db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")) {
    const match = family.exec(String(row.name));
    if (match?.[1] !== undefined) prefixes.add(match[1]);
  }
  for (const prefix of prefixes) dropPrefixedTables(db, prefix);
}

/** Passes events through until the handle ends; then the reader sees the handle's error, as on a dead socket. */
function guardStream(source: ReadableStream<WireExecEvent>, state: HandleState): ReadableStream<WireExecEvent> {
  const reader = source.getReader();
  let dead = false;
  let fail: ((error: Error) => void) | undefined;
  return new ReadableStream<WireExecEvent>(
    {
      start(controller) {
        fail = (error) => {
          if (dead) return;
          dead = true;
          controller.error(error);
          // Detaches from the runner: the execution keeps running, as when a socket drops.
          reader.cancel(error).catch(() => {});
        };
        if (state.failure !== undefined) fail(state.failure);
        else state.streams.add(fail);
      },
      async pull(controller) {
        const next = await reader.read();
        if (dead) return;
        if (next.done) {
          dead = true;
          if (fail !== undefined) state.streams.delete(fail);
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      },
      cancel(reason) {
        dead = true;
        if (fail !== undefined) state.streams.delete(fail);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Module backends, the original's second protocol: `{ protocol: "module",
 * id, type, callable?, connect(host) }`, whose handle runs executions itself
 * and answers each with an envelope of events (and, optionally, the sync it
 * did). The Workspace adopts one as a direct backend: the connection is made
 * once, lazily (the first call, or `ready(id)`), and shared; a failed connect
 * is retried on the next call. There is no sync bracket or fencing around
 * it — an envelope's `sync` is reported as the backend gives it.
 */
import type { RefusedEntry, SkippedEntry } from "@cloudflare/dofs/sync";
import type { BackendContext, DirectBackend, DirectExec, DirectExecRequest } from "./backend.js";
import { hostFor, type WorkspaceBackendHost } from "./backend-host.js";
import type { ExecSyncResult, KillSignal, WorkspaceRuntimeEvent, WorkspaceRuntimeValue } from "./types.js";

/** What a module backend's `exec` is given. `id` is always set by our runtime (a UUID when the caller gave none). */
export interface ModuleExecutionInput {
  id?: string;
  source: string;
  cwd?: string;
  input?: WorkspaceRuntimeValue;
  env?: Record<string, string>;
  stdin?: Uint8Array | string;
  timeoutMs?: number;
}

/** The sync a module backend did around one execution: entries it pushed, and the pull that follows. */
export interface ModuleExecutionSync {
  pushed: number;
  /** `refused` is ours (entries refused for a name too long to store); the original's outcome has none. */
  outcome: Promise<{ applied: number; skipped: SkippedEntry[]; refused?: RefusedEntry[]; sync: ExecSyncResult }>;
}

/** One execution as a module backend answers it. Output events carry bytes; the exit event `code` and `result`. */
export interface ModuleExecutionEnvelope {
  id: string;
  /** Identity of the process that runs it, handed back on `getExec` / `killExec` / `disposeExec`. */
  runtimeId?: string;
  events: ReadableStream<WorkspaceRuntimeEvent>;
  sync?: ModuleExecutionSync;
}

/** A live connection to a module backend. */
export interface WorkspaceModuleBackendHandle {
  exec(input: ModuleExecutionInput): Promise<ModuleExecutionEnvelope>;
  /** `after` unset replays from the start; a seq or `"tail"` resumes from there. */
  getExec(input: { id: string; after?: number | "tail"; runtimeId?: string }): Promise<ModuleExecutionEnvelope>;
  killExec(input: { id: string; signal?: KillSignal; runtimeId?: string }): Promise<void>;
  disposeExec(input: { id: string; runtimeId?: string }): Promise<void>;
  close?(): Promise<void>;
}

/** What `connect(host)` is given: the same host a command backend gets. */
export type WorkspaceModuleBackendHost = WorkspaceBackendHost;

export interface WorkspaceModuleBackend {
  readonly protocol: "module";
  readonly id: string;
  readonly type: string;
  /** Callable backends take JSON `input` and put the module's return value on the exit event. */
  readonly callable?: boolean;
  connect(host: WorkspaceModuleBackendHost): Promise<WorkspaceModuleBackendHandle>;
}

/** Executions whose runtime id is remembered for kill/dispose/replay; the oldest is forgotten past this. */
const REMEMBERED_RUNTIMES = 1024;

export function isModuleBackend(backend: object): backend is WorkspaceModuleBackend {
  const candidate = backend as { kind?: unknown; protocol?: unknown };
  return candidate.kind === undefined && candidate.protocol === "module";
}

export function adoptModuleBackend(backend: WorkspaceModuleBackend): DirectBackend {
  if (typeof backend.connect !== "function") {
    throw new TypeError(`Backend ${JSON.stringify(backend.id)}: a module backend needs connect(host)`);
  }
  let context: BackendContext | undefined;
  let connecting: Promise<WorkspaceModuleBackendHandle> | undefined;
  let closed = false;
  const runtimes = new Map<string, string>();

  const handle = (): Promise<WorkspaceModuleBackendHandle> => {
    if (!context) return Promise.reject(new Error(`Backend "${backend.id}" used before the Workspace attached it`));
    if (!connecting) {
      const attempt = backend.connect(hostFor(context));
      connecting = attempt;
      // A failed connect is not cached: the next call tries again.
      attempt.catch(() => {
        if (connecting === attempt) connecting = undefined;
      });
    }
    return connecting;
  };
  const remember = (id: string, runtimeId: string | undefined): void => {
    if (runtimeId === undefined) return;
    runtimes.delete(id);
    runtimes.set(id, runtimeId);
    if (runtimes.size > REMEMBERED_RUNTIMES) runtimes.delete(runtimes.keys().next().value as string);
  };
  const runtimeOf = (id: string): { runtimeId?: string } => {
    const runtimeId = runtimes.get(id);
    return runtimeId === undefined ? {} : { runtimeId };
  };
  const direct = (envelope: ModuleExecutionEnvelope): DirectExec => {
    remember(envelope.id, envelope.runtimeId);
    return { id: envelope.id, events: envelope.events, ...(envelope.sync ? { sync: envelope.sync } : {}) };
  };

  return {
    kind: "direct",
    id: backend.id,
    type: backend.type,
    callable: backend.callable === true,
    attach(given) {
      context = given;
    },
    async ready() {
      await handle();
    },
    async exec(source: string, request: DirectExecRequest): Promise<DirectExec> {
      const { id, cwd, input, env, stdin, timeoutMs } = request;
      const envelope = await (await handle()).exec({
        id,
        source,
        ...(cwd === undefined ? {} : { cwd }),
        ...(input === undefined ? {} : { input: input as WorkspaceRuntimeValue }),
        ...(env === undefined ? {} : { env }),
        ...(stdin === undefined ? {} : { stdin }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return direct(envelope);
    },
    async getExec(id, { after }): Promise<DirectExec> {
      // The original's "from the start" is an unset `after`.
      const from = after === undefined || after === 0 ? {} : { after };
      return direct(await (await handle()).getExec({ id, ...from, ...runtimeOf(id) }));
    },
    async killExec(id, signal): Promise<void> {
      await (await handle()).killExec({ id, ...(signal === undefined ? {} : { signal }), ...runtimeOf(id) });
    },
    async disposeExec(id): Promise<void> {
      await (await handle()).disposeExec({ id, ...runtimeOf(id) });
      runtimes.delete(id);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const pending = connecting;
      connecting = undefined;
      if (!pending) return;
      const open = await pending.catch(() => undefined);
      await open?.close?.();
    },
  };
}

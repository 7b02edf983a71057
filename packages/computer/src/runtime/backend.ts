/**
 * The seams a backend plugs into. There are two kinds:
 *
 * - A **command backend** (`container-shell`, `worker-shell`, `test`) supplies only a
 *   transport: `connect()` returns a `BackendHandle` speaking WorkspaceRPC
 *   (`sync` + `shell`). The runtime owns everything around it — the shared
 *   lazy connection, the sync bracket, runtime fencing, reconnect-once and
 *   pending-sync retries — so every command backend behaves the same.
 *   A backend working on the workspace's own storage (worker-shell) answers
 *   with a handle whose `sync` is `"none"`, and the bracket is skipped.
 * - A **direct backend** (`worker-javascript`) runs executions itself, keeps
 *   its own journal, and hands back event streams.
 */
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { RefusedEntry, SkippedEntry, SyncRPC } from "@cloudflare/dofs/sync";
import type { WorkspaceArtifacts, WorkspaceAssetsClient, WorkspaceGit } from "../contracts/capabilities.js";
import type { WorkspaceRuntime } from "./runtime.js";
import type { ExecEvent, ExecOptions, ExecSyncResult, GetExecOptions, KillSignal } from "./types.js";

/** What a backend learns about the workspace it serves when the Workspace is built. */
export interface BackendContext {
  /** The workspace's database (the DO's SQLite). Direct backends keep their journals here. */
  readonly db: Database;
  /** The workspace filesystem over `db`, for backends that run against it directly. */
  readonly fs: WorkspaceFilesystem;
  readonly now: () => number;
  /** The workspace's git client; throws ENOTCONFIGURED when git is off. */
  git(): WorkspaceGit;
  /** The workspace's artifacts client; throws ENOTCONFIGURED when unset. */
  artifacts(): WorkspaceArtifacts;
  /** The workspace's runtime, for host modules that run commands on other backends. */
  runtime?(): WorkspaceRuntime;
  /** The workspace's assets client, when it has one. */
  assets?(): WorkspaceAssetsClient | undefined;
}

/**
 * Shell events as they come off the wire: output is bytes, the exit its
 * code. The original's `ExecEvent`, member for member, so a custom backend
 * written against it serves ours. The runtime still reads what arrives
 * defensively (a missing value or code, an unknown name is dropped).
 */
export type WireExecEvent =
  | { id: string; seq: number; name: "stdout"; value: Uint8Array }
  | { id: string; seq: number; name: "stderr"; value: Uint8Array }
  | { id: string; seq: number; name: "exit"; code: number; result?: unknown };

/** An execution started or reattached on a backend: its id and its events. */
export interface BackendExec {
  id: string;
  /** Ends after the exit event. Canceling it detaches; the execution keeps running. */
  events: ReadableStream<WireExecEvent>;
}

export interface ShellExecRequest {
  source: string;
  id: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Always bytes: the runtime sends a string `stdin` option as its UTF-8. */
  stdin?: Uint8Array;
}

/** `WorkspaceRPC.shell` as a command backend serves it. Errors carry wire codes (ENOENT, EEXEC_BUSY, ELOG_TRUNCATED). */
export interface ShellRpcLike {
  exec(request: ShellExecRequest): Promise<BackendExec>;
  getExec(request: { id: string; after?: number | "tail" }): Promise<BackendExec>;
  killExec(request: { id: string; signal?: string }): Promise<void>;
  disposeExec(request: { id: string }): Promise<void>;
}

/** @deprecated The earlier spelling of `ShellRpcLike` (acronyms are cased as words in our own names). */
export type ShellRPCLike = ShellRpcLike;

/** One live connection to a command backend's runtime. */
export interface BackendHandle {
  /**
   * `"remote"`: the backend keeps its own copy of the files and the bracket
   * pushes before and pulls after each execution. `"none"`: it works on the
   * workspace storage directly, so there is nothing to sync (0/0).
   */
  readonly sync: "none" | "remote";
  /**
   * Identity of the process serving this connection (a container's durable
   * UUID). Executions are fenced to it: once it changes, old executions are
   * lost (`EEXEC_LOST`) and nothing about them reaches the new runtime.
   */
  readonly runtimeId: string;
  readonly rpc: { readonly sync: SyncRPC; readonly shell: ShellRpcLike };
  /** Settles when the connection is gone (socket closed, heartbeat failed); the runtime then drops it. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface CommandBackend {
  readonly kind: "command";
  readonly id: string;
  /** What the backend is, e.g. `"cloudflare-container"`; shown to agents and in errors. */
  readonly type: string;
  /** Called once when the Workspace is constructed, before any other method. */
  attach?(context: BackendContext): void;
  /**
   * Opens a new connection. The runtime shares one handle between callers and
   * calls this again only after the previous handle closed or failed.
   */
  connect(): Promise<BackendHandle>;
  /** Whether an error means the connection is unusable. Defaults to `isTransportError`. */
  isTransportError?(error: unknown): boolean;
  /** Releases backend resources when the Workspace closes. */
  close?(): Promise<void>;
}

/** An execution a direct backend started: events (bytes or strings) plus how to stop it. */
export interface DirectExec {
  id: string;
  events: ReadableStream<ExecEvent>;
  /**
   * The sync the backend did around the execution (a module backend's
   * envelope may carry it): entries pushed, and the pull that settles after
   * the events end. Unset: nothing to sync (0/0).
   */
  sync?: {
    pushed: number;
    outcome: Promise<{ applied: number; skipped: SkippedEntry[]; refused?: RefusedEntry[]; sync: ExecSyncResult }>;
  };
}

export interface DirectExecRequest extends Omit<ExecOptions, "backend" | "sync" | "encoding"> {
  /** Always set: the runtime mints a UUID when the caller gave none. */
  id: string;
}

export interface DirectBackend {
  readonly kind: "direct";
  readonly id: string;
  readonly type: string;
  /** Callable backends take JSON `input` and put the module's return value on the exit event. */
  readonly callable: boolean;
  attach?(context: BackendContext): void;
  /** Warms the backend up for `workspace.ready(id)`. */
  ready?(): Promise<void>;
  exec(source: string, request: DirectExecRequest): Promise<DirectExec>;
  getExec(id: string, options: { after?: number | "tail" }): Promise<DirectExec>;
  killExec(id: string, signal?: KillSignal): Promise<void>;
  disposeExec(id: string): Promise<void>;
  close?(): Promise<void>;
}

export type WorkspaceBackend = CommandBackend | DirectBackend;

export type { GetExecOptions };

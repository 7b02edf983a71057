/**
 * The wire: what a workspace's Durable Object and computerd say to each other
 * over one capnweb WebSocket. The shell shapes are defined here; the sync
 * shapes belong to dofs (both peers run it): import them from `@cloudflare/dofs/sync`.
 */
import type { SyncRPC } from "@cloudflare/dofs/sync";

export interface ExecRequest {
  /** Shell source, run as `/bin/sh -c`. */
  source: string;
  /** Absolute workspace path to run in; the mount point when omitted. */
  cwd?: string;
  /** Caller-chosen exec id; minted (a UUID) when omitted. */
  id?: string;
  /** For callable backends only. The shell server drops it before the runner sees it. */
  input?: unknown;
  /** Milliseconds before SIGTERM (then SIGKILL 5 s later); 0 disables. */
  timeoutMs?: number;
  /** Extra environment for this exec only. */
  env?: Record<string, string>;
  /** Piped to the child, then closed. Without it stdin is ignored. */
  stdin?: string | Uint8Array;
}

export interface ExecOutputEvent {
  id: string;
  /** Starts at 1 and increases by one per event of this exec. */
  seq: number;
  name: "stdout" | "stderr";
  value: Uint8Array;
}

export interface ExecExitEvent {
  id: string;
  seq: number;
  name: "exit";
  /** Exit status; signals map to 143 (TERM), 137 (KILL), 130 (INT), 129 (HUP), else −1. */
  code: number;
  result?: unknown;
}

export type ExecEvent = ExecOutputEvent | ExecExitEvent;

export interface ExecHandle {
  id: string;
  /** Closes after the exit event. Canceling it detaches the subscriber; the exec keeps running. */
  events: ReadableStream<ExecEvent>;
}

export interface GetExecRequest {
  id: string;
  /** Replay events with `seq > after` (default 0), then follow live; `"tail"` is live events only. */
  after?: number | "tail";
}

/**
 * The exit code of a command a signal killed (128 + the signal's number), as
 * a shell reports it: the signals `killExec` sends. Any other signal is −1.
 */
export const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = Object.freeze({
  SIGHUP: 129,
  SIGINT: 130,
  SIGKILL: 137,
  SIGTERM: 143,
});

export interface KillExecRequest {
  id: string;
  /** A signal name such as `"SIGTERM"` (the default) or `"SIGKILL"`. */
  signal?: string;
}

export interface DisposeExecRequest {
  id: string;
}

/** What computerd serves as `WorkspaceRPC.shell`. Errors: ENOENT, EEXEC_BUSY, ELOG_TRUNCATED. */
export interface ShellRPC {
  exec(request: ExecRequest): Promise<ExecHandle>;
  getExec(request: GetExecRequest): Promise<ExecHandle>;
  killExec(request: KillExecRequest): Promise<void>;
  disposeExec(request: DisposeExecRequest): Promise<void>;
}

/** The root object of a session. On the server `sync` and `shell` are getters. */
export interface WorkspaceRPC {
  readonly sync: SyncRPC;
  readonly shell: ShellRPC;
}

/**
 * Runner events may include heartbeats (keepalives with a seq of their own);
 * the shell server drops them before the wire.
 */
export interface ExecHeartbeatEvent {
  id: string;
  seq: number;
  name: "heartbeat";
}

type MaybePromise<T> = T | Promise<T>;

/**
 * What a computerd runner implements so `createShellServer(runner)` can serve
 * it: the four shell verbs, sync or async, with events that may carry
 * heartbeats. The server validates requests and drops `input` first.
 */
export interface RunnerLike {
  exec(request: Omit<ExecRequest, "input">): MaybePromise<RunnerHandle>;
  getExec(request: GetExecRequest): MaybePromise<RunnerHandle>;
  killExec(request: KillExecRequest): MaybePromise<void>;
  disposeExec(request: DisposeExecRequest): MaybePromise<void>;
}

export interface RunnerHandle {
  id: string;
  events: ReadableStream<ExecEvent | ExecHeartbeatEvent>;
}

/** One call as seen by a client's `onRPCEvent`. */
export interface RpcEvent {
  /** `"<service>.<method>"`, e.g. `"sync.push"`, `"shell.exec"`. */
  rpc: string;
  /** From the call to its settlement. A returned stream's consumption is not included. */
  durationMs: number;
  ok: boolean;
  /** The error's `code` when the call failed with one. */
  code?: string;
}

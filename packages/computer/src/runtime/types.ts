/**
 * The shapes `workspace.runtime` hands out: events on an execution's stream,
 * the options `exec` / `getExec` take, and the settled result.
 */
import type { Cursor, RefusedEntry, SkippedEntry } from "@cloudflare/dofs/sync";
import type { WorkspaceRuntimeOutputOptions, WorkspaceRuntimeTruncation } from "./output/options.js";

/** `"utf8"` decodes output to strings; unset keeps raw bytes. */
export type ExecEncoding = "utf8" | undefined;

/** One piece of output as an encoding delivers it. `ExecChunk<ExecEncoding>` is either. */
export type ExecChunk<E extends ExecEncoding> = E extends "utf8" ? string : Uint8Array;

/** A JSON value: a callable backend's `input` and the value it returns. */
export type WorkspaceRuntimeValue = null | boolean | number | string | WorkspaceRuntimeArray | WorkspaceRuntimeObject;
// Interfaces, not inline types: the Workers RPC stub types walk a value's type, and stop at a named interface.
export interface WorkspaceRuntimeArray extends Array<WorkspaceRuntimeValue> {}
export interface WorkspaceRuntimeObject {
  [key: string]: WorkspaceRuntimeValue;
}

/** Output on stdout or stderr. `value` is a string when the handle decodes utf8, otherwise raw bytes. */
export interface ExecOutputEvent<E extends ExecEncoding = ExecEncoding> {
  id: string;
  /** Position in the execution's log. Decoder tails flushed before `exit` carry fractional values (see decode.ts). */
  seq: number;
  name: "stdout" | "stderr";
  value: ExecChunk<E>;
}

/** The last event of an execution. `result` is the return value of a callable backend; command backends leave it unset. */
export interface ExecExitEvent {
  id: string;
  seq: number;
  name: "exit";
  code: number;
  result?: WorkspaceRuntimeValue;
  /** Output that passed the limits, and where it was saved in full. */
  truncated?: WorkspaceRuntimeTruncation;
}

export type ExecEvent<E extends ExecEncoding = ExecEncoding> = ExecOutputEvent<E> | ExecExitEvent;

/**
 * The original's older event shape, the one `encodeExecEvents` /
 * `decodeExecEvents` carry: like `WorkspaceRuntimeEvent`, except that the
 * exit status is the exit event's `value` (there is no `code`, no `result`).
 */
export type WorkspaceExecEvent<E extends ExecEncoding = undefined> =
  | { id: string; seq: number; name: "stdout"; value: ExecChunk<E> }
  | { id: string; seq: number; name: "stderr"; value: ExecChunk<E> }
  | { id: string; seq: number; name: "exit"; value: number };

export type ExecStatus = "completed" | "failed" | "cancelled";

/**
 * Outcome of the pull that follows an execution (the sync bracket).
 * `skipped` is the original's read-only skips; `refused` (ours, absent when
 * none) the entries refused for a name too long to store.
 */
export type ExecSyncResult =
  | { status: "complete"; applied: number; skipped: SkippedEntry[]; refused?: RefusedEntry[] }
  | {
      status: "pending";
      applied: number;
      skipped: SkippedEntry[];
      refused?: RefusedEntry[];
      /** Already passed through a safe-message filter; never a raw transport error. */
      error: string;
      backend?: string;
      runtimeId?: string;
      targetCursor?: Cursor;
    };

/** What the sync bracket contributes to a result; produced by the handle's `finish` hook. */
export interface ExecSyncSummary {
  /** Entries pushed to the backend before the execution started. */
  pushed: number;
  /** Entries pulled back (applied) after it exited. */
  pulled: number;
  skipped: SkippedEntry[];
  /** Ours: entries the pull refused for a name too long to store; absent when none. */
  refused?: RefusedEntry[];
  sync: ExecSyncResult;
}

export interface ExecResult<E extends ExecEncoding = ExecEncoding> extends ExecSyncSummary {
  status: ExecStatus;
  /** −1 when the stream ended without an exit event. */
  exitCode: number;
  /** A string when the handle decodes utf8, otherwise the concatenated bytes. */
  stdout: ExecChunk<E>;
  stderr: ExecChunk<E>;
  /** The exit event's `result`; only callable backends set it. */
  value?: WorkspaceRuntimeValue;
  /** Present when output passed the limits: stdout/stderr then hold only its end; the full output is in the named files. */
  truncated?: WorkspaceRuntimeTruncation;
}

export type KillSignal = "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP";

export interface ExecOptions<E extends ExecEncoding = ExecEncoding> {
  /** Execution id; at most 256 UTF-8 bytes. A UUID is assigned when omitted. */
  id?: string;
  /** Backend id; the first registered backend when omitted. */
  backend?: string;
  /** Absolute working directory. */
  cwd?: string;
  encoding?: E;
  /** JSON input; only callable backends accept it. */
  input?: unknown;
  env?: Record<string, string>;
  stdin?: Uint8Array | string;
  timeoutMs?: number;
  /** `"wait"` pulls before the stream closes; `"defer"` records a retry intent instead. */
  sync?: "wait" | "defer";
  /** How much output `result()` keeps per stream; the rest is saved to a file. `false` keeps all, saves nothing. */
  output?: WorkspaceRuntimeOutputOptions | false;
}

export interface GetExecOptions<E extends ExecEncoding = ExecEncoding> {
  backend?: string;
  encoding?: E;
  /** `"full"` replays from the start; `"tail"` or a seq resumes from there. */
  resume?: "tail" | "full" | number;
  /** Output limits for this replay, as for `exec`. */
  output?: WorkspaceRuntimeOutputOptions | false;
}

export interface KillExecOptions {
  backend?: string;
  signal?: KillSignal;
}

export interface DisposeExecOptions {
  backend?: string;
}

// The original's names for the same shapes. Its generics default to raw bytes (`undefined`).
export type WorkspaceRuntimeStatus = ExecStatus;
export type WorkspaceRuntimeEvent<E extends ExecEncoding = undefined> = ExecEvent<E>;
export type WorkspaceRuntimeResult<E extends ExecEncoding = undefined> = ExecResult<E>;
export type WorkspaceRuntimeExecOptions<E extends ExecEncoding = undefined> = ExecOptions<E>;
export type WorkspaceRuntimeGetOptions<E extends ExecEncoding = undefined> = GetExecOptions<E>;
export type WorkspaceRuntimeKillOptions = KillExecOptions;
export type WorkspaceRuntimeDisposeOptions = DisposeExecOptions;
/** Options of the client's `exec` (`getWorkspace(...).runtime`). */
export type RuntimeExecOptions = ExecOptions;
export type RuntimeGetOptions = GetExecOptions;
export type RuntimeKillOptions = KillExecOptions;
/** What a worker-javascript module may do to the workspace filesystem. */
export type WorkspaceRuntimeAccess = "read" | "read-write";

/**
 * The shapes `workspace.runtime` hands out: events on an execution's stream,
 * the options `exec` / `getExec` take, and the settled result.
 */
import type { Cursor, SkippedEntry } from "@cloudflare/dofs/sync";

/** Output on stdout or stderr. `value` is a string when the handle decodes utf8, otherwise raw bytes. */
export interface ExecOutputEvent {
  id: string;
  /** Position in the execution's log. Decoder tails flushed before `exit` carry fractional values (see decode.ts). */
  seq: number;
  name: "stdout" | "stderr";
  value: string | Uint8Array;
}

/** The last event of an execution. `result` is the return value of a callable backend; command backends leave it unset. */
export interface ExecExitEvent {
  id: string;
  seq: number;
  name: "exit";
  code: number;
  result?: unknown;
}

export type ExecEvent = ExecOutputEvent | ExecExitEvent;

export type ExecStatus = "completed" | "failed" | "cancelled";

/** Outcome of the pull that follows an execution (the sync bracket). */
export type ExecSyncResult =
  | { status: "complete"; applied: number; skipped: SkippedEntry[] }
  | {
      status: "pending";
      applied: number;
      skipped: SkippedEntry[];
      /** Already passed through a safe-message filter; never a raw transport error. */
      error?: string;
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
  sync: ExecSyncResult;
}

export interface ExecResult extends ExecSyncSummary {
  status: ExecStatus;
  /** −1 when the stream ended without an exit event. */
  exitCode: number;
  /** A string when the handle decodes utf8, otherwise the concatenated bytes. */
  stdout: string | Uint8Array;
  stderr: string | Uint8Array;
  /** The exit event's `result`; only callable backends set it. */
  value?: unknown;
}

export type ExecEncoding = "utf8";

export type KillSignal = "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP";

export interface ExecOptions {
  /** Execution id; at most 256 UTF-8 bytes. A UUID is assigned when omitted. */
  id?: string;
  /** Backend id; the first registered backend when omitted. */
  backend?: string;
  /** Absolute working directory. */
  cwd?: string;
  encoding?: ExecEncoding;
  /** JSON input; only callable backends accept it. */
  input?: unknown;
  env?: Record<string, string>;
  stdin?: Uint8Array | string;
  timeoutMs?: number;
  /** `"wait"` pulls before the stream closes; `"defer"` records a retry intent instead. */
  sync?: "wait" | "defer";
}

export interface GetExecOptions {
  backend?: string;
  encoding?: ExecEncoding;
  /** `"full"` replays from the start; `"tail"` or a seq resumes from there. */
  resume?: "tail" | "full" | number;
}

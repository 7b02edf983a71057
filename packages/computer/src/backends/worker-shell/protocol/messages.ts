/**
 * What the host and the `ShellWorker` inside the Dynamic Worker agree on: the
 * exec request, the NDJSON frames of its event stream, the limits, and the
 * command groups. Runtime-neutral: both sides import it.
 *
 * A run is buffered, not streamed: at most one stdout frame, at most one
 * stderr frame (only when non-empty) and one exit frame, each one JSON line
 * `{id,seq,name,value}` with seq from 1. Output is text (`value` a string,
 * re-encoded to UTF-8 bytes by the host) unless the last command wrote raw
 * bytes, which travel as `enc:"b64"`.
 */
/** The entrypoint class the loaded Worker exports, and its main module. */
export const SHELL_ENTRYPOINT = "ShellWorker";
export const SHELL_MAIN_MODULE = "shell.js";

/** Combined stdout + stderr of one run, bytes (just-bash's `maxOutputSize`). */
export const SHELL_OUTPUT_LIMIT_BYTES = 1024 * 1024;
export const SHELL_DEFAULT_CWD = "/workspace";
export const TIMED_OUT_EXIT_CODE = 124;
export const TIMED_OUT_MESSAGE = "Execution timed out";
export const KILLED_EXIT_CODE = 130;
export const KILLED_MESSAGE = "Execution cancelled.";

/** `ShellWorker.exec`'s argument. `stdin` is bytes; the host encodes strings as UTF-8. */
export interface ShellExecArgs {
  command: string;
  cwd?: string;
  id?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  stdin?: Uint8Array;
}

/** What `ShellWorker.exec` returns: the id it ran under and its NDJSON frames. */
export interface ShellExecReply {
  id: string;
  events: ReadableStream<Uint8Array>;
}

export type ShellFrame =
  | { id: string; seq: number; name: "stdout" | "stderr"; value: string; enc?: "b64" }
  | { id: string; seq: number; name: "exit"; code: number };

/**
 * The Worker's RPC surface as the host calls it: the `ShellWorker`
 * entrypoint of a loaded Worker, or any runtime an `external-runtime` source
 * connects to.
 */
export interface WorkerShellRuntime {
  exec(args: ShellExecArgs): Promise<ShellExecReply>;
  getExec(args: { id: string }): Promise<ShellExecReply>;
  killExec(args: { id: string; signal?: string }): Promise<void>;
  /** Frees a finished execution's buffered events; optional, as the original's runtime has none. */
  disposeExec?(args: { id: string }): Promise<void>;
}

/**
 * Optional command groups: each ships the just-bash commands named here as
 * its own modules (`@cloudflare/computer/shell/<group>`), so a Worker pays
 * for what it imports. Everything else just-bash has is in `core`, except
 * python and js-exec, which need `node:worker_threads` (absent in workerd),
 * and sqlite3, which runs sql.js in a worker thread.
 */
export const SHELL_GROUP_COMMANDS = {
  curl: ["curl"],
  jq: ["jq"],
  yq: ["yq"],
  "html-to-markdown": ["html-to-markdown"],
  file: ["file"],
  xan: ["xan"],
} as const satisfies Record<string, readonly string[]>;

export type ShellGroupName = keyof typeof SHELL_GROUP_COMMANDS;

/** just-bash commands no group ships: they cannot run in workerd. */
export const SHELL_UNAVAILABLE_COMMANDS: readonly string[] = ["sqlite3", "python3", "python", "js-exec", "node"];

/**
 * The original's python, sqlite and js-exec groups, which cannot work in a
 * Dynamic Worker: just-bash runs these commands in a `node:worker_threads`
 * worker, which workerd does not have (docs/worker-shell.md). Ours ship the
 * subpaths, so code importing them builds and loads, and a group given in
 * `commands` makes its commands fail saying why, with the exit status the
 * original's answer (127 "not available", or 1 for sqlite3's failed worker).
 */
export const SHELL_UNAVAILABLE_GROUPS = {
  python: { python3: 127, python: 127 },
  sqlite: { sqlite3: 1 },
  "js-exec": { "js-exec": 127, node: 127 },
} as const satisfies Record<string, Readonly<Record<string, number>>>;

export type ShellUnavailableGroupName = keyof typeof SHELL_UNAVAILABLE_GROUPS;

/** What an unavailable command prints on stderr. */
export function unavailableCommandMessage(command: string, group: string): string {
  return `${command}: not available in the worker-shell backend: just-bash runs it in a node:worker_threads worker, which workerd does not have (the ${group} group is loaded, its command cannot run); use a container-shell backend\n`;
}

/** The module in every group that names it; the backend finds the groups it was given by these. */
export function groupMarkerModule(group: string): string {
  return `groups/${group}.js`;
}

export function encodeFrame(frame: ShellFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * What the tools need from a workspace, as structural types with the
 * original's names and shapes: a `Workspace` fits, so does the client
 * `getWorkspace()` returns and a test double, and this folder never imports
 * the workerd-only Workspace class (so the tools type-check and run in Node).
 * Each tool asks only for the calls it makes: `exec` a runtime, `ls` a
 * `readdir`, and so on.
 */
import type { WorkspaceRuntimeTruncation } from "../runtime/output/options.js";
import type { WorkspaceRuntimeValue } from "../runtime/types.js";

/** What `fs.stat` answers; the tools read these fields only. */
export interface ToolStat {
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  mode: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** One directory entry as `fs.readdir` lists it and `ls` reports it. */
export interface ToolDirEntry {
  name: string;
  size: number;
  mtime: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface ToolGrepOptions {
  regex?: boolean;
  ignoreCase?: boolean;
  context?: number;
  limit?: number;
  offset?: number;
  include?: string;
}

export interface ToolGrepMatch {
  path: string;
  line: number;
  text: string;
  context?: { line: number; text: string; isMatch: boolean }[];
}

/** The filesystem calls the tools make: a Workspace's `fs` and a `getWorkspace()` client's both fit. */
export interface ToolFilesystem {
  stat(path: string): Promise<ToolStat>;
  readFile(path: string, options?: { byteOffset?: number; byteLength?: number }): Promise<ReadableStream<Uint8Array>>;
  writeFile(path: string, content: Uint8Array, options?: { mode?: number }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  /** A filesystem may report more types than "file" and "dir"; `find` reports the rest as "file". */
  find(
    directory: string,
    pattern?: string,
    options?: { limit?: number; offset?: number },
  ): Promise<Array<{ path: string; type: string }>>;
  grep(pattern: string, path: string, options?: ToolGrepOptions): Promise<ToolGrepMatch[]>;
  readdir(path: string, options?: { limit?: number; offset?: number }): Promise<ToolDirEntry[]>;
}

/** The workspace the file tools run over (the original's `WorkspaceLike`). */
export interface WorkspaceLike {
  fs: ToolFilesystem;
}

/** One event of an execution as `exec` reads it. Our runtime's events carry `id` and `seq` as well. */
export type ExecStreamEvent =
  | { name: "stdout"; value: string }
  | { name: "stderr"; value: string }
  | { name: "exit"; code: number; result?: unknown; truncated?: WorkspaceRuntimeTruncation };

/**
 * An execution as `exec` sees it: the events when it is async-iterable
 * (a Workspace's handle is), else `result()`; `kill` on abort.
 */
export interface ExecRuntimeHandle extends Partial<AsyncIterable<ExecStreamEvent>> {
  result(): Promise<{
    exitCode: number;
    stdout: string;
    stderr: string;
    value?: unknown;
    truncated?: WorkspaceRuntimeTruncation;
  }>;
  kill?(): Promise<void>;
}

/**
 * What `exec` takes from a runtime: the original's `ExecRuntimeHandle`, and
 * also one whose output is typed as bytes or text (a runtime whose `exec` is
 * not typed by encoding; `exec` always asks for utf8 and decodes bytes if
 * they come anyway).
 */
export interface ToolExecHandle extends Partial<AsyncIterable<ToolExecEvent>> {
  result(): Promise<{
    exitCode: number;
    stdout: string | Uint8Array;
    stderr: string | Uint8Array;
    value?: unknown;
    truncated?: WorkspaceRuntimeTruncation;
  }>;
  kill?(): Promise<void>;
}

export type ToolExecEvent =
  | { name: "stdout" | "stderr"; value: string | Uint8Array }
  | { name: "exit"; code: number; result?: unknown; truncated?: WorkspaceRuntimeTruncation };

/** The options `exec` passes to `runtime.exec`: always utf8, the rest only when the model gave them. */
export interface ToolExecOptions {
  cwd?: string;
  encoding: "utf8";
  backend?: string;
  env?: Record<string, string>;
  input?: WorkspaceRuntimeValue;
  /** Output limits, passed when the tool has `maxLines` (0.8.0's exec passes its own limits). */
  output?: { maxBytes: number; maxLines: number };
}

/** The runtime surface `exec` uses. */
export interface ToolRuntime {
  exec(command: string, options: ToolExecOptions): Promise<ToolExecHandle>;
  isCallable?(id: string): boolean;
  /**
   * Ours in addition: the backends the runtime has, for `shell: true`. A
   * `getWorkspace()` client's runtime does not list them.
   */
  readonly backends?: readonly string[];
}

/** What `exec` needs: a runtime and nothing else (no `fs`). */
export interface ExecWorkspaceLike {
  runtime: ToolRuntime;
}

/** The share options `publish` passes. */
export interface ToolShareOptions {
  expiresAfter: number;
  prefix?: string;
}

/**
 * The assets client `publish` uses: the original's `share(path, options)`
 * answering the URL, or `publish(path, options)` answering the URL (a
 * Workspace's) or `{ url }` (an older publisher of ours).
 */
export type ToolAssets =
  | { share(path: string, options: ToolShareOptions): Promise<string> }
  | { publish(path: string, options: ToolShareOptions): Promise<string | { url: string }> };

/** What `publish` needs: the session id (for the key prefix) and an assets client. */
export interface PublishWorkspaceLike {
  readonly sessionId?: string | undefined;
  readonly assets?: ToolAssets | undefined;
}

/** Everything `createAITools` may use: the file calls always, a runtime and assets when present. */
export type ToolWorkspace = WorkspaceLike & Partial<ExecWorkspaceLike> & PublishWorkspaceLike;

/** What a tool returns instead of throwing. */
export interface ToolError {
  error: string;
}

/**
 * What the tools need from a workspace, as structural types: a `Workspace`
 * fits, and so does a test double, and this folder never imports the
 * workerd-only Workspace class (so the tools type-check and run in Node).
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { ExecHandle } from "../runtime/handle.js";
import type { ExecOptions } from "../runtime/types.js";

/**
 * The runtime surface `exec` uses. A `getWorkspace()` client's runtime lists
 * no backends (pass `shell: { backends }`) and says nothing is callable.
 */
export interface ToolRuntime {
  readonly backends?: readonly string[];
  isCallable?(id: string): boolean;
  exec(source: string, options?: ExecOptions): Promise<ToolExecHandle>;
}

/** An execution as the tool sees it: a stream of events (when it is one), a result, and a kill switch. */
export type ToolExecHandle = Pick<ExecHandle, "result" | "kill"> & Partial<Pick<ExecHandle, "getReader">>;

/** The publish options the tool passes; a Workspace's assets client ignores `prefix` only if it has no use for it. */
export interface ToolPublishOptions {
  expiresAfter: number;
  prefix?: string;
}

export interface ToolAssets {
  publish(path: string, options: ToolPublishOptions): Promise<string | { url: string }>;
}

/** The filesystem calls the tools make: a Workspace's `fs` and a `getWorkspace()` client's both fit. */
export type ToolFilesystem = Pick<
  WorkspaceFilesystem,
  "stat" | "readFile" | "writeFile" | "mkdir" | "rm" | "find" | "grep" | "readdir"
>;

export interface ToolWorkspace {
  readonly fs: ToolFilesystem;
  readonly sessionId?: string | undefined;
  readonly assets?: ToolAssets | undefined;
  readonly runtime?: ToolRuntime;
}

/** What every tool returns instead of throwing. */
export interface ToolError {
  error: string;
}

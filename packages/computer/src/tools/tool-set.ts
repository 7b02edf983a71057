/**
 * The tool set 0.8.0's adapters share (`CreateToolsOptions`): read, ls, find
 * and grep always; write, edit and delete unless `readonly`; `exec` when the
 * workspace has a backend (`exec: {}` leaves it out); `publish` when assets
 * are configured. Each tool is an AI SDK-shaped object (description, zod
 * `inputSchema`, `execute`) built without loading `ai`; the adapters turn
 * them into their library's shapes.
 */
import type { Tool } from "ai";
import { createDeleteTool } from "./delete.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createExecTool, type ExecBackendInfo, type ExecToolOptions } from "./exec.js";
import { WorkspaceFileStore } from "./file-store.js";
import { createFindTool } from "./find.js";
import { createGrepTool } from "./grep.js";
import { createListTool } from "./ls.js";
import { createPublishTool } from "./publish.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import type { ToolRuntime, ToolWorkspace } from "./types.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

/** Which backends `exec` may use, keyed by id; the text is shown before the backend's own description. */
export type ExecBackends = Readonly<Record<string, { description?: string }>>;

/** What every set has in common: the file tools, and `publish` where the workspace has assets. */
export interface FileToolsOptions {
  /**
   * A `Workspace`, the client `getWorkspace()` returns, or anything with the
   * `fs` calls the tools make (plus `runtime` for `exec`, `assets` for `publish`).
   */
  workspace: ToolWorkspace;
  /** Only read, ls, find and grep. Default false. */
  readonly?: boolean;
  /** Set false to leave out `publish` even when the workspace has assets. Default true. */
  assets?: boolean;
  read?: Omit<ReadToolOptions, "store">;
  write?: Omit<WriteToolOptions, "store">;
  edit?: Omit<EditToolOptions, "store">;
}

export interface CreateToolsOptions extends FileToolsOptions {
  /** Backends `exec` may use. Omitted: every backend the workspace lists; `{}`: no exec tool. */
  exec?: ExecBackends;
  /** Output limits of the exec tool. */
  execOutput?: { maxBytes?: number; maxLines?: number };
  /** @deprecated 0.2.1's way to add exec; mapped to `exec: backends`, `defaultBackend` is ignored. */
  shell?: Omit<ExecToolOptions, "workspace"> | true;
}

/** The tools every adapter starts from, keyed by name. */
export type WorkspaceToolSet = Record<string, Tool>;

/** Names of the tools that change nothing (kept in read-only sets). */
export const READ_ONLY_TOOLS: readonly string[] = ["read", "ls", "find", "grep"];
/** What `approve: "mutating"` means. */
export const MUTATING_TOOLS: readonly string[] = ["write", "edit", "delete", "exec", "publish"];

const GENERIC_BACKEND = "Runs shell commands in the workspace.";

interface BackendListing {
  id: string;
  description?: string;
}

/** The backends a runtime lists: 0.8's `backends()` (infos) or our older `backends` getter (ids). */
function listedBackends(runtime: ToolRuntime): BackendListing[] | undefined {
  const listed: unknown = (runtime as { backends?: unknown }).backends;
  const value = typeof listed === "function" ? (listed as () => unknown).call(runtime) : listed;
  if (!Array.isArray(value)) return undefined;
  return value.map((entry) =>
    typeof entry === "string" ? { id: entry } : { id: String(entry.id), description: entry.description },
  );
}

/** exec's backend table: the caller's text first, then the backend's own, or a generic line. */
function execBackends(runtime: ToolRuntime, chosen: ExecBackends | undefined): Record<string, ExecBackendInfo> {
  const listed = listedBackends(runtime) ?? [];
  const own = new Map(listed.map((entry) => [entry.id, entry.description]));
  const ids = chosen === undefined ? listed.map((entry) => entry.id) : Object.keys(chosen);
  const table: Record<string, ExecBackendInfo> = {};
  for (const id of ids) {
    const text = [chosen?.[id]?.description, own.get(id)].filter((part) => part !== undefined && part !== "");
    table[id] = { description: text.length > 0 ? text.join(" ") : GENERIC_BACKEND };
  }
  return table;
}

function execTool(options: CreateToolsOptions): Tool | undefined {
  const runtime = options.workspace.runtime;
  if (runtime === undefined) return undefined;
  const given = options.execOutput;
  const limits = {
    ...(given?.maxBytes === undefined ? {} : { maxBytes: given.maxBytes }),
    ...(given?.maxLines === undefined ? {} : { maxLines: given.maxLines }),
  };
  if (options.exec === undefined && options.shell !== undefined) {
    // Deprecated form: its backends become `exec`; its limits are still forwarded.
    const { defaultBackend: _ignored, ...shell } = options.shell === true ? {} : options.shell;
    return createExecTool({ ...shell, ...limits, workspace: { runtime } });
  }
  const backends = execBackends(runtime, options.exec);
  if (Object.keys(backends).length === 0) return undefined;
  return createExecTool({ ...limits, backends, workspace: { runtime } });
}

/**
 * The file tools of one workspace (read, ls, find, grep; write, edit and
 * delete unless `readonly`), then `exec` from `extra` (a set adds it in its
 * own way), then `publish`: the order an agent sees them in.
 */
export function createFileTools(
  options: FileToolsOptions,
  extra: (tools: WorkspaceToolSet) => void = () => {},
): WorkspaceToolSet {
  const { workspace } = options;
  // One store for the set; its lock identity is workspace.fs, so other sets over this workspace share the locks.
  const store = new WorkspaceFileStore(workspace);
  const tools: WorkspaceToolSet = {
    read: createReadTool({ ...options.read, store }),
    ls: createListTool({ workspace }),
    find: createFindTool({ workspace }),
    grep: createGrepTool({ workspace }),
  };
  if (options.readonly === true) return tools;
  tools.write = createWriteTool({ ...options.write, store });
  tools.edit = createEditTool({ ...options.edit, store });
  tools.delete = createDeleteTool({ store });
  extra(tools);
  if (options.assets !== false && workspace.assets !== undefined) tools.publish = createPublishTool({ workspace });
  return tools;
}

export function createToolSet(options: CreateToolsOptions): WorkspaceToolSet {
  if (!options.workspace?.fs) throw new TypeError("the workspace tools need { workspace } with an fs");
  return createFileTools(options, (tools) => {
    const exec = execTool(options);
    if (exec) tools.exec = exec;
  });
}

/** Runs one tool the way the AI SDK does: a streaming (async-iterable) result resolves to its last value. */
export async function runTool(
  tool: Tool,
  input: unknown,
  context: { toolCallId: string; abortSignal?: AbortSignal; onSnapshot?: (value: unknown) => void },
): Promise<unknown> {
  if (typeof tool.execute !== "function") throw new TypeError("this tool has no execute function");
  const { onSnapshot, ...rest } = context;
  const output: unknown = await tool.execute(input as never, { ...rest, messages: [] });
  if (output === null || typeof output !== "object" || !(Symbol.asyncIterator in output)) return output;
  let last: unknown;
  for await (const value of output as AsyncIterable<unknown>) {
    if (last !== undefined) onSnapshot?.(last);
    last = value;
  }
  return last;
}

/** A tool output that reports a failure (`{ error }`), as every workspace tool does instead of throwing. */
export function errorOf(output: unknown): string | undefined {
  if (output === null || typeof output !== "object" || !("error" in output)) return undefined;
  const error = (output as { error: unknown }).error;
  return typeof error === "string" ? error : undefined;
}

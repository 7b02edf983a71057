/**
 * The original's names of the tools' option and result types, for code that
 * names them. Where a shape still differs, test/compat/gaps.json lists it
 * (issue 19 row 12).
 */
import type { createFindTool } from "./find.js";
import type { createGrepTool } from "./grep.js";
import type { createListTool } from "./ls.js";
import type { ToolWorkspace } from "./types.js";

export type { AIToolsOptions } from "./create-ai-tools.js";
export type { ExecBackendInfo, ExecOutput } from "./exec.js";
export type { FileInfo } from "./file-store.js";
export type { ToolExecHandle, ToolWorkspace } from "./types.js";

/** `createFindTool(options)`: only `fs.find` is used. */
export type FindToolOptions = Parameters<typeof createFindTool>[0];
/** `createGrepTool(options)`: only `fs.grep` is used. */
export type GrepToolOptions = Parameters<typeof createGrepTool>[0];
/** `createListTool(options)`: only `fs.readdir` is used. */
export type ListToolOptions = Parameters<typeof createListTool>[0];
/** `createPublishTool(options)`. */
export interface PublishToolOptions {
  workspace: ToolWorkspace;
}

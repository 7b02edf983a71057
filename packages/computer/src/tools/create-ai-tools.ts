/**
 * `createAITools`: the tool set an agent gets for one workspace. Reading is
 * always there; mutation unless `readonly`; `exec` only when `shell` is given
 * (running commands is a decision, not a default); `publish` when the
 * workspace has an assets client and `assets` is not false.
 */
import type { ToolSet } from "ai";
import { createDeleteTool } from "./delete.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createExecTool, type ExecToolOptions } from "./exec.js";
import { WorkspaceFileStore } from "./file-store.js";
import { createFindTool } from "./find.js";
import { createGrepTool } from "./grep.js";
import { createListTool } from "./ls.js";
import { createPublishTool } from "./publish.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import type { ToolWorkspace } from "./types.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

export interface AIToolsOptions {
  workspace: ToolWorkspace;
  /** Only read, ls, find and grep. Default false. */
  readonly?: boolean;
  /** Set false to leave out `publish` even when the workspace has assets. Default true. */
  assets?: boolean;
  read?: ReadToolOptions;
  write?: WriteToolOptions;
  edit?: EditToolOptions;
  /** Adds `exec`; `true` offers every backend of the runtime. */
  shell?: ExecToolOptions | true;
}

/** The AI SDK's `ToolSet`, as the original returns. */
export type AITools = ToolSet;

export function createAITools(options: AIToolsOptions): AITools {
  const { workspace } = options;
  if (!workspace?.fs) throw new TypeError("createAITools needs { workspace }");
  // One store for the set; its lock identity is workspace.fs, so other sets over this workspace share the locks.
  const store = new WorkspaceFileStore(workspace);
  const reading: AITools = {
    read: createReadTool({ store, ...options.read, workspace }),
    ls: createListTool({ workspace }),
    find: createFindTool({ workspace }),
    grep: createGrepTool({ workspace }),
  };
  if (options.readonly === true) return reading;
  const shell = options.shell;
  return {
    ...reading,
    write: createWriteTool({ store, ...options.write, workspace }),
    edit: createEditTool({ store, ...options.edit, workspace }),
    delete: createDeleteTool({ store, workspace }),
    ...(shell === undefined ? {} : { exec: createExecTool({ ...(shell === true ? {} : shell), workspace }) }),
    ...(workspace.assets !== undefined && options.assets !== false
      ? { publish: createPublishTool({ workspace }) }
      : {}),
  };
}

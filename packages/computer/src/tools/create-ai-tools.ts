/**
 * `createAITools`: the tool set an agent gets for one workspace. Reading is
 * always there; mutation unless `readonly`; `exec` only when `shell` is given
 * (running commands is a decision, not a default); `publish` when the
 * workspace has an assets client and `assets` is not false.
 */
import type { ToolSet } from "ai";
import type { EditToolOptions } from "./edit.js";
import { createExecTool, type ExecToolOptions } from "./exec.js";
import type { ReadToolOptions } from "./read.js";
import { createFileTools } from "./tool-set.js";
import type { ToolWorkspace } from "./types.js";
import type { WriteToolOptions } from "./write.js";

export interface AIToolsOptions {
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
  /** Adds `exec` over `workspace.runtime`; `true` (ours) offers every backend the runtime lists. */
  shell?: Omit<ExecToolOptions, "workspace"> | true;
}

/** The AI SDK's `ToolSet`, as the original returns. */
export type AITools = ToolSet;

export function createAITools(options: AIToolsOptions): AITools {
  const { workspace } = options;
  if (!workspace?.fs) throw new TypeError("createAITools needs { workspace }");
  return createFileTools(options, (tools) => {
    const { shell } = options;
    if (shell === undefined) return;
    const { runtime } = workspace;
    if (runtime === undefined) throw new TypeError("createAITools: shell needs a workspace with a runtime");
    tools.exec = createExecTool({ ...(shell === true ? {} : shell), workspace: { runtime } });
  });
}

/**
 * `createAITools`: the tool set an agent gets for one workspace. Reading is
 * always there; mutation unless `readonly`; `exec` only when `shell` is given
 * (running commands is a decision, not a default); `publish` when the
 * workspace has an assets client and `assets` is not false.
 */
import type { ToolSet } from "ai";
import { createExecTool, type ExecToolOptions } from "./exec.js";
import { createFileTools, type FileToolsOptions } from "./tool-set.js";

export interface AIToolsOptions extends FileToolsOptions {
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

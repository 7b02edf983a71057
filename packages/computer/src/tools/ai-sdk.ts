/**
 * `@cloudflare/computer/tools/ai-sdk`: the workspace tools for the AI SDK
 * (needs `ai` and `zod`). `createAITools` takes 0.8.0's options
 * (`CreateToolsOptions`): `exec` is in the set whenever the workspace has a
 * backend, `exec: {}` leaves it out, `shell` is the deprecated 0.2.1 form.
 */
import type { ToolSet } from "ai";
import { type CreateToolsOptions, createToolSet } from "./tool-set.js";

export type CreateAIToolsOptions = CreateToolsOptions;

export function createAITools(options: CreateAIToolsOptions): ToolSet {
  return createToolSet(options);
}

export { createDeleteTool } from "./delete.js";
export { createEditTool } from "./edit.js";
export { createExecTool } from "./exec.js";
export { createFindTool } from "./find.js";
export { createGrepTool } from "./grep.js";
export { createListTool } from "./ls.js";
export { createPublishTool } from "./publish.js";
export { createReadTool } from "./read.js";
export type { CreateToolsOptions, ExecBackends } from "./tool-set.js";
export { createWriteTool } from "./write.js";

/**
 * `@cloudflare/computer/tools`: AI SDK tools over a workspace. Needs the
 * optional peers `ai` (6 or 7) and `zod` 4.
 */
export { type AITools, type AIToolsOptions, createAITools } from "./create-ai-tools.js";
export {
  createDeleteTool,
  type DeleteInput,
  type DeleteOutput,
  type DeleteResult,
  type DeleteToolOptions,
} from "./delete.js";
export { DEMO_LABEL, type DemoStep, type DemoTurn, demoModel } from "./demo-model.js";
export {
  createEditTool,
  EDIT_MAX_BYTES,
  type EditInput,
  type EditOutput,
  type EditResult,
  type EditToolOptions,
} from "./edit.js";
export {
  createExecTool,
  EXEC_MAX_BYTES,
  EXEC_STREAM_MAX_BYTES,
  type ExecBackendInfo,
  type ExecFailure,
  type ExecInput,
  type ExecOrigin,
  type ExecOutput,
  type ExecSnapshot,
  type ExecToolOptions,
} from "./exec.js";
export {
  type FileInfo,
  type FileStore,
  type FileToolTarget,
  type MutableFileStore,
  WorkspaceFileStore,
  type WorkspaceFileStoreLike,
} from "./file-store.js";
export { createFindTool, type FindInput, type FindOutput, type FindResult, type FindToolOptions } from "./find.js";
export {
  createGrepTool,
  type GrepInput,
  type GrepOutput,
  type GrepResult,
  type GrepToolMatch,
  type GrepToolOptions,
} from "./grep.js";
export {
  createListTool,
  type ListEntry,
  type ListInput,
  type ListOutput,
  type ListResult,
  type ListToolOptions,
} from "./ls.js";
// The original's names for types that are named differently here.
export type { CreateAIToolsOptions, ExecBackendDescription, ExecToolOutput, FileStat } from "./option-names.js";
export {
  createPublishTool,
  type PublishInput,
  type PublishOutput,
  type PublishToolOptions,
} from "./publish.js";
export {
  createReadTool,
  LINE_TRUNCATION_MARKER,
  type LineTruncation,
  READ_MAX_BYTES,
  READ_MAX_LINES,
  type ReadBinaryResult,
  type ReadInput,
  type ReadMediaResult,
  type ReadOutput,
  type ReadResult,
  type ReadTextResult,
  type ReadToolOptions,
} from "./read.js";
export type {
  ExecRuntimeHandle,
  ExecStreamEvent,
  ExecWorkspaceLike,
  PublishWorkspaceLike,
  ToolAssets,
  ToolError,
  ToolExecEvent,
  ToolExecHandle,
  ToolExecOptions,
  ToolFilesystem,
  ToolRuntime,
  ToolShareOptions,
  ToolWorkspace,
  WorkspaceLike,
} from "./types.js";
export {
  createWriteTool,
  type WriteInput,
  type WriteOutput,
  type WriteResult,
  type WriteToolOptions,
} from "./write.js";

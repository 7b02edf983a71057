/**
 * The original's names of the tools' option and result types, for code that
 * names them (issue 19 row 12).
 */
export type { AIToolsOptions as CreateAIToolsOptions } from "./create-ai-tools.js";
export type { ExecBackendInfo as ExecBackendDescription, ExecOutput as ExecToolOutput } from "./exec.js";
export type { FileInfo as FileStat } from "./file-store.js";

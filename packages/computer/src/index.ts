export { decodeUtf8Events, Utf8EventDecoder } from "./runtime/decode.js";
export { ExecHandle, type ExecHandleOptions, emptySyncSummary } from "./runtime/handle.js";
export { MISSING_EXIT_CODE, statusForExitCode } from "./runtime/status.js";
export type {
  ExecEncoding,
  ExecEvent,
  ExecExitEvent,
  ExecOptions,
  ExecOutputEvent,
  ExecResult,
  ExecStatus,
  ExecSyncResult,
  ExecSyncSummary,
  GetExecOptions,
  KillSignal,
} from "./runtime/types.js";
export { MAX_EXEC_ID_BYTES, validateCwd, validateExecId, validateInput } from "./runtime/validate.js";
export { type ShellValue, sh, shellQuote } from "./workspace/sh.js";

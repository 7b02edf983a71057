/**
 * `@cloudflare/computer-rpc`: the wire types and error codes shared by both ends.
 * The sync shapes (`SyncRPC`, `ChangeEntry`, …) are not here: their one public
 * path is `@cloudflare/dofs/sync`, where they are defined.
 */
export { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER, type EgressEndpoint } from "./egress.js";
export {
  decodeWireError,
  encodeWireError,
  isRpcError,
  isWireErrorCode,
  rebuildWorkspaceRpcError,
  rpcError,
  WIRE_ERROR_CODES,
  type WireErrorCode,
  WorkspaceRpcError,
} from "./errors.js";
export {
  checkExecRequest,
  type ExecRequestField,
  type ExecRequestProblem,
  execCwdProblem,
  execEnvProblem,
  execIdProblem,
  execOptionsProblem,
  execRequestError,
  execRequestProblem,
  MAX_EXEC_ID_BYTES,
} from "./exec-request.js";
export { withTimeout } from "./timeout.js";
export type {
  DisposeExecRequest,
  ExecEvent,
  ExecExitEvent,
  ExecHandle,
  ExecHeartbeatEvent,
  ExecOutputEvent,
  ExecRequest,
  GetExecRequest,
  KillExecRequest,
  RpcEvent,
  RunnerHandle,
  RunnerLike,
  ShellRPC,
  WorkspaceRPC,
} from "./types.js";
export { SIGNAL_EXIT_CODES } from "./types.js";

/**
 * The checks an exec request passes before anything runs: every field the
 * runner reads, with EPROTOCOL (which survives capnweb) for a wrong one, so
 * a bad request neither spawns nor leaks one of Node's own errors
 * (`ERR_INVALID_ARG_TYPE` from a pipe write, a spawn refusing a NUL).
 */
import {
  checkExecRequest as checkWireRequest,
  type ExecRequest,
  execIdProblem,
  execRequestError,
} from "@cloudflare/computer-rpc";

/** Node's timers hold at most 2^31 − 1 ms (24.8 days); a longer one would fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The wire package's one check (an EPROTOCOL naming the field); this end adds nothing of its own. */
export function checkExecRequest(request: Omit<ExecRequest, "input">): void {
  checkWireRequest(request, "exec");
}

/** getExec, killExec and disposeExec check their id too, so a bad id is EPROTOCOL, never ENOENT. */
export function checkId(id: unknown, rpc: string): void {
  const found = execIdProblem(id);
  if (found) throw execRequestError(found, rpc);
}

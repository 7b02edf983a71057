/**
 * Exit code → status. 129, 130, 137 and 143 are 128 + SIGHUP, SIGINT, SIGKILL
 * and SIGTERM: the signals `killExec` sends, so they read as `cancelled`.
 */
import { SIGNAL_EXIT_CODES } from "@cloudflare/computer-rpc";
import type { ExecStatus } from "./types.js";

/** The exit code reported when a stream ends without an exit event. */
export const MISSING_EXIT_CODE = -1;

const CANCELLED_CODES: ReadonlySet<number> = new Set(Object.values(SIGNAL_EXIT_CODES));

export function statusForExitCode(code: number): ExecStatus {
  if (code === 0) return "completed";
  if (CANCELLED_CODES.has(code)) return "cancelled";
  return "failed";
}

/**
 * The bad exec requests every end must refuse alike: the public runtime
 * (computer runtime/validate.ts), the shell server (rpc) and computerd's
 * runner each run the wire package's one check (src/exec-request.ts) and are
 * tested against this one table, so an end cannot start to accept one of them.
 * `field` is the field the check names.
 */
import type { ExecRequestField } from "../src/exec-request.js";

export interface BadExecRequest {
  readonly name: string;
  readonly field: ExecRequestField;
  /** The request's fields besides `source` (which is "true" unless given). */
  readonly fields: Readonly<Record<string, unknown>>;
}

export const BAD_EXEC_REQUESTS: readonly BadExecRequest[] = [
  { name: "an empty id", field: "id", fields: { id: "" } },
  { name: "a numeric id", field: "id", fields: { id: 7 } },
  { name: "an id of 257 bytes", field: "id", fields: { id: "x".repeat(257) } },
  { name: "an id of 129 two-byte characters", field: "id", fields: { id: "é".repeat(129) } },
  { name: "a relative cwd", field: "cwd", fields: { cwd: "relative" } },
  { name: "a cwd with NUL", field: "cwd", fields: { cwd: "/tmp\0x" } },
  { name: "a numeric cwd", field: "cwd", fields: { cwd: 7 } },
  { name: "env as a string", field: "env", fields: { env: "A=1" } },
  { name: "env as an array", field: "env", fields: { env: ["A=1"] } },
  { name: "env as null", field: "env", fields: { env: null } },
  { name: "an env value that is a number", field: "env", fields: { env: { A: 1 } } },
  { name: "an env name with =", field: "env", fields: { env: { "A=B": "1" } } },
  { name: "an empty env name", field: "env", fields: { env: { "": "1" } } },
  { name: "an env value with NUL", field: "env", fields: { env: { A: "a\0b" } } },
  { name: "stdin as a number", field: "stdin", fields: { stdin: 12 } },
  { name: "stdin as null", field: "stdin", fields: { stdin: null } },
  { name: "a negative timeoutMs", field: "timeoutMs", fields: { timeoutMs: -5 } },
  { name: "a fractional timeoutMs", field: "timeoutMs", fields: { timeoutMs: 1.5 } },
  { name: "timeoutMs as a string", field: "timeoutMs", fields: { timeoutMs: "100" } },
  { name: "timeoutMs NaN", field: "timeoutMs", fields: { timeoutMs: Number.NaN } },
  { name: "timeoutMs past 2^53", field: "timeoutMs", fields: { timeoutMs: 2 ** 53 } },
];

/** Requests refused by the wire ends only: the runtime builds `source` itself. */
export const BAD_WIRE_SOURCES: readonly { name: string; request: unknown }[] = [
  { name: "a request that is not an object", request: "echo" },
  { name: "a numeric source", request: { source: 42 } },
  { name: "a source with NUL", request: { source: "echo a\0b" } },
];

/** Edge cases every end accepts. */
export const GOOD_EXEC_REQUESTS: readonly Readonly<Record<string, unknown>>[] = [
  {},
  { id: "x".repeat(256) },
  { id: "é".repeat(128) },
  { cwd: "/" },
  { env: {} },
  { env: { A: "" } },
  { stdin: "" },
  { stdin: new Uint8Array([1]) },
  { timeoutMs: 0 },
];

export function badRequest(bad: BadExecRequest): Record<string, unknown> {
  return { source: "true", ...bad.fields };
}

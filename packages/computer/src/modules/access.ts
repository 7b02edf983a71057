/** Checks the prebuilt host modules share: what a call's arguments and its backend's access allow. */
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import type { WorkspaceModuleCallContext } from "./types.js";

export function requireWrite(context: WorkspaceModuleCallContext, what: string): void {
  if (context.access !== "read-write") throw new Error(`${what} requires Workspace write access.`);
}

/** The argument as an options object: `undefined`/`null` are `{}`; anything else but a plain object is refused. */
export function optionsArg(
  value: WorkspaceRuntimeValue | undefined,
  what: string,
): Record<string, WorkspaceRuntimeValue> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new TypeError(`${what}: options must be an object`);
  return value;
}

export function optionalString(value: WorkspaceRuntimeValue | undefined, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
  return value;
}

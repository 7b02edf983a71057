import type { ToolError } from "./types.js";

/**
 * Tools report failures to the model as `{ error }`: a thrown error would end
 * the agent's step, while a message lets the model correct itself. Messages of
 * filesystem errors already carry code, syscall and path (`ENOENT: no such
 * file or directory, open '/workspace/a'`).
 */
export function toolError(error: unknown): ToolError {
  if (error instanceof Error) return { error: error.message };
  return { error: String(error) };
}

/** Runs a tool body and turns anything it throws into `{ error }`. */
export async function guarded<T>(body: () => Promise<T>): Promise<T | ToolError> {
  try {
    return await body();
  } catch (error) {
    return toolError(error);
  }
}

export function isToolError(value: unknown): value is ToolError {
  return typeof value === "object" && value !== null && typeof (value as { error?: unknown }).error === "string";
}

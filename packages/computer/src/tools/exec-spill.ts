/**
 * What the exec tool tells the model about output the runtime cut (0.8.0's
 * `truncated` on the exit event and the result): a bracketed note after the
 * stream's text naming the size of the whole output and the Workspace file
 * that holds it, or why it could not be saved. The model can then read the
 * file with the read tool instead of running the command again.
 */
import type { TruncatedOutput, WorkspaceRuntimeTruncation } from "../runtime/output/options.js";

export type { TruncatedOutput, WorkspaceRuntimeTruncation };

function note(cut: TruncatedOutput): string {
  const size = `${cut.totalBytes} bytes, ${cut.totalLines} lines`;
  return cut.status === "saved"
    ? `[Output of ${size} was cut. Full output: ${cut.path}]`
    : `[Output of ${size} was cut and could not be saved: ${cut.reason}]`;
}

/** The stream's text with the note appended when the runtime cut that stream. */
export function withSpillNote(text: string, cut: TruncatedOutput | undefined): string {
  if (!cut) return text;
  return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${note(cut)}`;
}

/** A runtime truncation report, if the value is one (the tool takes any runtime, typed loosely). */
export function truncationOf(value: unknown): WorkspaceRuntimeTruncation | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return value as WorkspaceRuntimeTruncation;
}

/**
 * `edit`: targeted replacements in one text file, all or nothing. Matching
 * rules are in edit-match.ts; this file handles what surrounds them: the
 * input forms models actually send, the size cap, the byte-order mark and
 * line endings (matched as LF, written back as they were), the file mode,
 * the lock, and the diff.
 */
import { fsError } from "@cloudflare/dofs";
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { editDiff } from "./diff.js";
import { applyEdits, type Edit, EditError, locateEdits } from "./edit-match.js";
import { guarded } from "./errors.js";
import {
  capOption,
  type FileStore,
  type FileToolTarget,
  noSuchFile,
  readAllOrThrow,
  resolveToolPath,
  toolStore,
} from "./file-store.js";
import { withPathLock } from "./locks.js";
import type { ToolError } from "./types.js";

export const EDIT_MAX_BYTES = 2 * 1024 * 1024;

const editItem = z
  .object({
    oldText: z
      .string()
      .describe("Text to replace, copied exactly from the file; must occur once and not overlap another edit."),
    newText: z.string().describe("Replacement text."),
  })
  .strict();

const editInput = z.object({
  path: z.string().describe("File to edit: absolute, or relative to /workspace."),
  edits: z
    .array(editItem)
    .describe(
      "Replacements, each matched against the original file (not one another's results); they must not overlap.",
    ),
});

export type EditInput = z.infer<typeof editInput>;

export interface EditResult {
  path: string;
  editsApplied: number;
  /** Changed lines with their numbers, for reading. */
  diff: string;
  /** Unified diff. */
  patch: string;
  firstChangedLine: number;
}

export type EditOutput = EditResult | ToolError;

export interface EditToolOptions {
  store?: FileStore;
  /** Largest file in UTF-8 bytes. Default 2 MiB. */
  maxBytes?: number;
}

/**
 * The edits of a call. The SDK has checked the input against the schema; a
 * direct `execute` call has not, so the forms models send anyway are taken
 * too: `edits` as a JSON string of the array, and a top-level
 * `oldText`/`newText` pair (added after the others).
 */
function editsOf(input: unknown): Edit[] {
  const raw = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  let edits: unknown = raw.edits;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits);
    } catch {
      throw new EditError("edits must be an array of { oldText, newText } (a JSON string of one is accepted too)");
    }
  }
  if (typeof raw.oldText === "string" && typeof raw.newText === "string") {
    edits = [...(Array.isArray(edits) ? edits : []), { oldText: raw.oldText, newText: raw.newText }];
  }
  const parsed = z.array(z.object({ oldText: z.string(), newText: z.string() })).safeParse(edits);
  if (!parsed.success) throw new EditError("edits must be an array of { oldText, newText }");
  if (parsed.data.length === 0) throw new EditError("edits is empty: give at least one { oldText, newText }");
  return parsed.data;
}

const LF = (text: string): string => text.replace(/\r\n/g, "\n");

export function createEditTool(options: FileToolTarget & EditToolOptions): Tool<EditInput, EditOutput> {
  const store = toolStore(options, "createEditTool");
  const maxBytes = capOption(options.maxBytes, "edit maxBytes", EDIT_MAX_BYTES);
  return tool({
    description:
      "Replace text in a file. Each oldText must match exactly one place in the current file (include a few " +
      "surrounding lines to make it unique); all edits are matched against the original and applied together. " +
      "Returns a diff.",
    inputSchema: editInput,
    execute: (input) =>
      guarded(async (): Promise<EditResult> => {
        const path = resolveToolPath(input.path);
        const edits = editsOf(input);
        return withPathLock(store.lockIdentity ?? store, path, {}, async () => {
          const info = await store.stat(path);
          if (!info) throw noSuchFile(path);
          if (info.size > maxBytes) {
            const detail = `file is ${info.size} bytes; edit works on files of at most ${maxBytes} bytes`;
            throw fsError("EFBIG", "edit", path, detail);
          }
          const bytes = await readAllOrThrow(store, path);
          let raw: string;
          try {
            raw = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
          } catch {
            throw new Error(`${path} is not UTF-8 text; edit only changes text files`);
          }
          const bom = raw.startsWith("\ufeff") ? "\ufeff" : "";
          const body = raw.slice(bom.length);
          const crlf = (body.match(/\r\n/g)?.length ?? 0) > (body.match(/(?<!\r)\n/g)?.length ?? 0);
          const original = LF(body);
          const located = locateEdits(
            original,
            edits.map((edit) => ({ oldText: LF(edit.oldText).replace(/^\ufeff/, ""), newText: LF(edit.newText) })),
            path,
          );
          const updated = applyEdits(original, located);
          if (updated === original) throw new EditError(`No changes made to ${path}`);
          const text = bom + (crlf ? updated.replace(/\n/g, "\r\n") : updated);
          await store.write(path, new TextEncoder().encode(text), info.mode === undefined ? {} : { mode: info.mode });
          return { path, editsApplied: edits.length, ...editDiff(path, original, updated, located) };
        });
      }),
  });
}

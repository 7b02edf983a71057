/** `find`: paths under a directory matching a glob (`*` one segment, `**` any depth, `?` one character). */
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { guarded } from "./errors.js";
import { resolveToolPath, TOOL_CWD } from "./file-store.js";
import { page, pageFields } from "./page.js";
import type { ToolError, ToolFilesystem } from "./types.js";

const findInput = z.object({
  path: z.string().default(TOOL_CWD).describe("Directory to search (default /workspace)."),
  pattern: z
    .string()
    .describe("Glob over paths relative to `path`: `*` within one segment, `**` any depth, `?` one character."),
  ...pageFields,
});

export type FindInput = z.infer<typeof findInput>;

export interface FindResult {
  path: string;
  pattern: string;
  count: number;
  entries: { path: string; type: "file" | "dir" }[];
  nextOffset?: number;
}

export type FindOutput = FindResult | ToolError;

/** `createFindTool(options)`: only `fs.find` is used. */
export interface FindToolOptions {
  workspace: { fs: Pick<ToolFilesystem, "find"> };
}

export function createFindTool(options: FindToolOptions): Tool<FindInput, FindOutput> {
  const { fs } = options.workspace;
  return tool({
    description: "Find files and directories by glob, e.g. `**/*.ts` or `src/*/index.?s` (paged).",
    inputSchema: findInput,
    execute: (input) =>
      guarded(async (): Promise<FindResult> => {
        const path = resolveToolPath(input.path ?? TOOL_CWD, "find");
        const { items, nextOffset } = await page(input, (limit, offset) =>
          fs.find(path, input.pattern, { limit, offset }),
        );
        // A symlink is reported as a file: the tools that take a path follow it.
        const entries = items.map(
          (entry) => ({ path: entry.path, type: entry.type === "dir" ? "dir" : "file" }) as const,
        );
        return {
          path,
          pattern: input.pattern,
          count: entries.length,
          entries,
          ...(nextOffset === undefined ? {} : { nextOffset }),
        };
      }),
  });
}

/** `grep`: lines matching a literal (default) or a regular expression, files in depth-first order. */
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { guarded } from "./errors.js";
import { resolveToolPath, TOOL_CWD } from "./file-store.js";
import { page, pageFields } from "./page.js";
import type { ToolError, ToolFilesystem, ToolGrepMatch } from "./types.js";

const grepInput = z.object({
  path: z.string().default(TOOL_CWD).describe("File or directory to search (default /workspace)."),
  query: z.string().describe("Text to look for; a JavaScript regular expression when regex is true."),
  include: z
    .string()
    .optional()
    .describe("Only files whose path relative to `path` matches this glob, e.g. `**/*.ts`."),
  regex: z.boolean().optional().describe("Treat query as a regular expression (default: literal text)."),
  ignoreCase: z.boolean().optional().describe("Match regardless of case (default: case-sensitive)."),
  context: z.number().int().min(0).max(10).optional().describe("Lines of context around each match, 0–10."),
  ...pageFields,
});

export type GrepInput = z.infer<typeof grepInput>;

export type GrepToolMatch = ToolGrepMatch;

export interface GrepResult {
  path: string;
  query: string;
  count: number;
  matches: GrepToolMatch[];
  nextOffset?: number;
}

export type GrepOutput = GrepResult | ToolError;

/** `createGrepTool(options)`: only `fs.grep` is used. */
export interface GrepToolOptions {
  workspace: { fs: Pick<ToolFilesystem, "grep"> };
}

export function createGrepTool(options: GrepToolOptions): Tool<GrepInput, GrepOutput> {
  const { fs } = options.workspace;
  return tool({
    description: "Search file contents. Literal and case-sensitive unless regex / ignoreCase are set (paged).",
    inputSchema: grepInput,
    execute: (input) =>
      guarded(async (): Promise<GrepResult> => {
        const path = resolveToolPath(input.path ?? TOOL_CWD, "grep");
        if (input.regex === true) {
          try {
            new RegExp(input.query, input.ignoreCase === true ? "i" : "");
          } catch (error) {
            throw new Error(`Invalid regular expression ${JSON.stringify(input.query)}: ${(error as Error).message}`);
          }
        }
        const { items, nextOffset } = await page(input, (limit, offset) =>
          fs.grep(input.query, path, {
            regex: input.regex === true,
            ignoreCase: input.ignoreCase === true,
            limit,
            offset,
            ...(input.context === undefined ? {} : { context: input.context }),
            ...(input.include === undefined ? {} : { include: input.include }),
          }),
        );
        return {
          path,
          query: input.query,
          count: items.length,
          matches: items,
          ...(nextOffset === undefined ? {} : { nextOffset }),
        };
      }),
  });
}

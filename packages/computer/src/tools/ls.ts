/** `ls`: one directory's entries in name order, a page at a time. */
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { guarded } from "./errors.js";
import { resolveToolPath } from "./file-store.js";
import { page, pageFields } from "./page.js";
import type { ToolDirEntry, ToolError, ToolFilesystem } from "./types.js";

const lsInput = z.object({
  path: z.string().describe("Directory to list: absolute, or relative to /workspace."),
  ...pageFields,
});

export type ListInput = z.infer<typeof lsInput>;

export type ListEntry = ToolDirEntry;

export interface ListResult {
  path: string;
  count: number;
  entries: ListEntry[];
  nextOffset?: number;
}

export type ListOutput = ListResult | ToolError;

/** `createListTool(options)`: only `fs.readdir` is used. */
export interface ListToolOptions {
  workspace: { fs: Pick<ToolFilesystem, "readdir"> };
}

export function createListTool(options: ListToolOptions): Tool<ListInput, ListOutput> {
  const { fs } = options.workspace;
  return tool({
    description: "List a directory (name order, paged). Directories show isDirectory: true.",
    inputSchema: lsInput,
    execute: (input) =>
      guarded(async (): Promise<ListResult> => {
        const path = resolveToolPath(input.path, "scandir");
        const { items, nextOffset } = await page(input, (limit, offset) => fs.readdir(path, { limit, offset }));
        const entries = items.map(({ name, size, mtime, isFile, isDirectory, isSymbolicLink }) => ({
          name,
          size,
          mtime,
          isFile,
          isDirectory,
          isSymbolicLink,
        }));
        return { path, count: entries.length, entries, ...(nextOffset === undefined ? {} : { nextOffset }) };
      }),
  });
}

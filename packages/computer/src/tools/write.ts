/** `write`: replaces (or creates) a text file, keeping the mode of the file it replaces. */
import { fsError } from "@cloudflare/dofs";
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { guarded } from "./errors.js";
import { capOption, type FileStore, type FileToolTarget, resolveToolPath, toolStore } from "./file-store.js";
import { withPathLock } from "./locks.js";
import type { ToolError } from "./types.js";

export const WRITE_MAX_BYTES = 2 * 1024 * 1024;

const writeInput = z.object({
  path: z.string().describe("File to write: absolute, or relative to /workspace. Missing directories are created."),
  content: z.string().describe("The whole new content (UTF-8)."),
});

export type WriteInput = z.infer<typeof writeInput>;

export interface WriteResult {
  path: string;
  bytesWritten: number;
}

export type WriteOutput = WriteResult | ToolError;

export interface WriteToolOptions {
  store?: FileStore;
  /** Largest content in UTF-8 bytes. Default 2 MiB. */
  maxBytes?: number;
}

export function createWriteTool(options: FileToolTarget & WriteToolOptions): Tool<WriteInput, WriteOutput> {
  const store = toolStore(options, "createWriteTool");
  const maxBytes = capOption(options.maxBytes, "write maxBytes", WRITE_MAX_BYTES);
  return tool({
    description: `Create or overwrite a text file with the given content (at most ${maxBytes} bytes). Prefer edit for changes to an existing file.`,
    inputSchema: writeInput,
    execute: (input) =>
      guarded(async (): Promise<WriteResult> => {
        const path = resolveToolPath(input.path);
        const bytes = new TextEncoder().encode(input.content);
        if (bytes.byteLength > maxBytes) {
          const detail = `content is ${bytes.byteLength} bytes; write takes at most ${maxBytes} bytes, nothing was written`;
          throw fsError("EFBIG", "write", path, detail);
        }
        return withPathLock(store.lockIdentity ?? store, path, {}, async () => {
          // Keeps an executable script executable. A directory is not a file to the store: writeFile says EISDIR.
          const existing = await store.stat(path);
          await store.write(path, bytes, existing?.mode === undefined ? {} : { mode: existing.mode });
          return { path, bytesWritten: bytes.byteLength };
        });
      }),
  });
}

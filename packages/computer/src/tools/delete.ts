/** `delete`: removes a file, or a directory tree with `recursive`; a missing path is not an error. */
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { guarded } from "./errors.js";
import { type FileToolTarget, type MutableFileStore, resolveToolPath, toolStore } from "./file-store.js";
import { withPathLock } from "./locks.js";
import type { ToolError } from "./types.js";

const deleteInput = z.object({
  path: z.string().describe("File or directory to delete: absolute, or relative to /workspace."),
  recursive: z.boolean().optional().describe("Needed to delete a non-empty directory."),
});

export type DeleteInput = z.infer<typeof deleteInput>;

export interface DeleteResult {
  /** The path, normalized. Reported the same whether or not it existed. */
  deleted: string;
}

export type DeleteOutput = DeleteResult | ToolError;

/** The workspace, or (the original's form) only a `store` it can remove from. */
export type DeleteToolOptions = FileToolTarget<MutableFileStore>;

export function createDeleteTool(options: DeleteToolOptions): Tool<DeleteInput, DeleteOutput> {
  const store = toolStore(options, "createDeleteTool");
  return tool({
    description: "Delete a file, or a directory with recursive: true. Deleting a missing path succeeds.",
    inputSchema: deleteInput,
    execute: (input) =>
      guarded(async (): Promise<DeleteResult> => {
        const path = resolveToolPath(input.path, "rm");
        const recursive = input.recursive === true;
        // A recursive delete holds the whole subtree: an edit below it must not recreate a file mid-delete.
        return withPathLock(store.lockIdentity ?? store, path, { subtree: recursive }, async () => {
          await store.remove(path, { recursive, force: true });
          return { deleted: path };
        });
      }),
  });
}

/** `write` and `delete` through the AI SDK and the per-path locks. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool, runScript } from "../../test/tools/scripted-model.js";
import { absenceWindow, waitFor } from "../../test/wait.js";
import { createAITools } from "./create-ai-tools.js";
import { createDeleteTool } from "./delete.js";
import { createEditTool } from "./edit.js";
import { type MutableFileStore, WorkspaceFileStore } from "./file-store.js";
import { createWriteTool } from "./write.js";

/** An unlocked write or delete lands in a few event-loop turns; this is many times that. */
const WRITE_WOULD_LAND_MS = 50;

/** A WorkspaceFileStore whose reads wait until `open()`: an edit holds its lock while it waits. */
class GatedStore extends WorkspaceFileStore implements MutableFileStore {
  readonly reads: string[] = [];
  #open!: () => void;
  readonly #gate = new Promise<void>((resolve) => (this.#open = resolve));

  open(): void {
    this.#open();
  }

  override async readAll(path: string): Promise<Uint8Array | null> {
    this.reads.push(path);
    await this.#gate;
    return super.readAll(path);
  }
}

describe("write", () => {
  it("(26) keeps an existing 0755 mode; over 2 MiB is an error and writes nothing", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/x.sh", "old", { mode: 0o755 });
      const tools = createAITools({ workspace });
      expect((await callTool(tools, "write", { path: "/workspace/x.sh", content: "héllo" })).output).toEqual({
        path: "/workspace/x.sh",
        bytesWritten: 6,
      });
      expect(await workspace.fs.readFile("/workspace/x.sh", "utf8")).toBe("héllo");
      expect((await workspace.fs.stat("/workspace/x.sh")).mode).toBe(0o755);
      const big = await callTool(tools, "write", { path: "/workspace/big.txt", content: "é".repeat(1024 * 1024 + 1) });
      expect(big.output).toEqual({ error: expect.stringMatching(/^EFBIG: content is 2097154 bytes/) });
      await expect(workspace.fs.stat("/workspace/big.txt")).rejects.toMatchObject({ code: "ENOENT" });
      // New files get the default mode and missing parents.
      await callTool(tools, "write", { path: "/workspace/new/dir/f.txt", content: "" });
      expect((await workspace.fs.stat("/workspace/new/dir/f.txt")).mode).toBe(0o644);
    });
  });
});

describe("delete and locks", () => {
  it("(27) deleting a missing path succeeds", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createAITools({ workspace });
      expect((await callTool(tools, "delete", { path: "/workspace/nope" })).output).toEqual({
        deleted: "/workspace/nope",
      });
      await workspace.fs.mkdir("/workspace/d/e", { recursive: true });
      await workspace.fs.writeFile("/workspace/d/e/f", "x");
      expect((await callTool(tools, "delete", { path: "/workspace/d" })).output).toEqual({
        error: expect.stringMatching(/^ENOTEMPTY/),
      });
      expect((await callTool(tools, "delete", { path: "/workspace/d", recursive: true })).output).toEqual({
        deleted: "/workspace/d",
      });
      await expect(workspace.fs.stat("/workspace/d")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });

  it("(27) a write issued in the same step as an edit of the same path waits for the edit", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/f.txt", "one two");
      const gated = new GatedStore(workspace);
      // Separate tool sets: the edit's store is gated, the write's is a plain one. They share locks through workspace.fs.
      const tools = {
        edit: createEditTool({ workspace, store: gated }),
        write: createWriteTool({ workspace }),
      };
      const run = runScript(tools, [
        [
          { tool: "edit", input: { path: "/workspace/f.txt", edits: [{ oldText: "one", newText: "ONE" }] } },
          { tool: "write", input: { path: "/workspace/f.txt", content: "written" } },
        ],
      ]);
      // Let both calls start: the edit is parked in its read, holding the lock; the write must not land meanwhile.
      await waitFor(() => gated.reads.length > 0, "the edit parked in its read");
      await absenceWindow(WRITE_WOULD_LAND_MS);
      expect(await workspace.fs.readFile("/workspace/f.txt", "utf8")).toBe("one two");
      gated.open();
      const { result } = await run;
      const outputs = result.steps[0]?.toolResults.map((r) => [r.toolName, r.output]);
      expect(outputs).toEqual([
        ["edit", expect.objectContaining({ editsApplied: 1 })],
        ["write", { path: "/workspace/f.txt", bytesWritten: 7 }],
      ]);
      // The write ran after the edit, so its content is the one left.
      expect(await workspace.fs.readFile("/workspace/f.txt", "utf8")).toBe("written");
    });
  });

  it("a recursive delete waits for an edit below it, and a write below waits for the delete", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace/dir", { recursive: true });
      await workspace.fs.writeFile("/workspace/dir/a.txt", "a");
      const gated = new GatedStore(workspace);
      const tools = {
        edit: createEditTool({ workspace, store: gated }),
        delete: createDeleteTool({ workspace }),
        write: createWriteTool({ workspace }),
      };
      const run = runScript(tools, [
        [
          { tool: "edit", input: { path: "/workspace/dir/a.txt", edits: [{ oldText: "a", newText: "b" }] } },
          { tool: "delete", input: { path: "/workspace/dir", recursive: true } },
          { tool: "write", input: { path: "/workspace/dir/c.txt", content: "c" } },
        ],
      ]);
      await waitFor(() => gated.reads.length > 0, "the edit parked in its read");
      await absenceWindow(WRITE_WOULD_LAND_MS);
      expect(await workspace.fs.readFile("/workspace/dir/a.txt", "utf8")).toBe("a");
      gated.open();
      await run;
      // edit → delete → write: only the write's file is left.
      expect((await workspace.fs.readdir("/workspace/dir")).map((e) => e.name)).toEqual(["c.txt"]);
    });
  });
});

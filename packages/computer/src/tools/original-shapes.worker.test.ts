/**
 * Issue 19 row 12: the file tools take the original's option shapes (types
 * from `computer-reference`; none of its code runs here): `create*Tool({ store })`
 * with no workspace, a store of the original's contract (no `lockIdentity`,
 * `readAll` answering null), and the configurable caps `read.maxLines` /
 * `read.maxBytes` and `write`/`edit` `maxBytes`.
 */

import type { ToolSet } from "ai";
import type {
  CreateAIToolsOptions as ReferenceAIToolsOptions,
  EditToolOptions as ReferenceEditOptions,
  ExecRuntimeHandle as ReferenceExecHandle,
  ExecToolOptions as ReferenceExecOptions,
  MutableFileStore as ReferenceMutableStore,
  ReadToolOptions as ReferenceReadOptions,
  WriteToolOptions as ReferenceWriteOptions,
} from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";
import { createDeleteTool } from "./delete.js";
import { createEditTool } from "./edit.js";
import { createExecTool } from "./exec.js";
import { createReadTool } from "./read.js";
import { createWriteTool } from "./write.js";

/** An in-memory store written to the original's `MutableFileStore` contract. */
function memoryStore(): ReferenceMutableStore & { files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    async stat(path) {
      const bytes = files.get(path);
      return bytes === undefined ? null : { size: bytes.byteLength, mtime: 0, mode: 0o100644 };
    },
    async *readChunks(path, byteOffset = 0, byteLength) {
      const bytes = files.get(path);
      if (bytes === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      yield bytes.subarray(byteOffset, byteLength === undefined ? undefined : byteOffset + byteLength);
    },
    async readAll(path) {
      return files.get(path) ?? null;
    },
    async write(path, content) {
      files.set(path, content);
    },
    async remove(path) {
      files.delete(path);
    },
  };
}

describe("the original's tool options", () => {
  it("create*Tool({ store }) works with no workspace, on a store without lockIdentity", async () => {
    const store = memoryStore();
    const tools: ToolSet = {
      write: createWriteTool({ store } satisfies ReferenceWriteOptions),
      read: createReadTool({ store } satisfies ReferenceReadOptions),
      edit: createEditTool({ store } satisfies ReferenceEditOptions),
      delete: createDeleteTool({ store }),
    };
    expect((await callTool(tools, "write", { path: "/workspace/a.txt", content: "one\ntwo\n" })).output).toEqual({
      path: "/workspace/a.txt",
      bytesWritten: 8,
    });
    const edited = await callTool(tools, "edit", {
      path: "/workspace/a.txt",
      edits: [{ oldText: "two", newText: "2" }],
    });
    expect(edited.output).not.toHaveProperty("error");
    expect(new TextDecoder().decode(store.files.get("/workspace/a.txt"))).toBe("one\n2\n");
    expect((await callTool(tools, "read", { path: "/workspace/a.txt" })).output).toMatchObject({ content: "one\n2" });
    // readAll answering null (the original's contract for a missing file) is an error result, not a crash.
    store.stat = async () => ({ size: 1, mtime: 0 });
    const missing = await callTool(tools, "edit", {
      path: "/workspace/gone.txt",
      edits: [{ oldText: "a", newText: "b" }],
    });
    expect(missing.output).toEqual({ error: "No such file: /workspace/gone.txt" });
    await callTool(tools, "delete", { path: "/workspace/a.txt" });
    expect(store.files.size).toBe(0);
    expect(() => createReadTool({} as never)).toThrow(/needs \{ store \} or \{ workspace \}/);
  });

  it("read.maxLines and read.maxBytes set the page; write and edit maxBytes cap their sizes", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/n.txt", "1\n2\n3\n4\n5\n");
      const tools = createAITools({
        workspace,
        read: { maxLines: 2 },
        write: { maxBytes: 4 },
        edit: { maxBytes: 8 },
      });
      const page = await callTool(tools, "read", { path: "/workspace/n.txt" });
      expect(page.output).toMatchObject({ content: "1\n2", endLine: 2, truncated: true, nextOffset: 3 });
      const more = await callTool(tools, "read", { path: "/workspace/n.txt", limit: 10, offset: 3 });
      expect(more.output).toMatchObject({ content: "3\n4", endLine: 4 });
      const bytes = await callTool(createAITools({ workspace, read: { maxBytes: 4 } }), "read", {
        path: "/workspace/n.txt",
      });
      expect(bytes.output).toMatchObject({ content: "1\n2", truncated: true });

      const big = await callTool(tools, "write", { path: "/workspace/w.txt", content: "12345" });
      expect(big.output).toEqual({ error: expect.stringMatching(/^EFBIG: content is 5 bytes; write takes at most 4/) });
      expect(await workspace.fs.stat("/workspace/w.txt").catch((error: { code: string }) => error.code)).toBe("ENOENT");
      const edit = await callTool(tools, "edit", { path: "/workspace/n.txt", edits: [{ oldText: "1", newText: "0" }] });
      expect(edit.output).toEqual({
        error: expect.stringMatching(/^EFBIG: .* is 10 bytes; edit works on files of at most 8/),
      });
      expect(() => createAITools({ workspace, read: { maxLines: 0 } })).toThrow(
        /read maxLines must be a positive integer/,
      );
    });
  });

  it("exec runs over a workspace that is only a runtime, with the original's handle shape", async () => {
    const seen: unknown[] = [];
    const handle = (command: string): ReferenceExecHandle => ({
      async *[Symbol.asyncIterator]() {
        yield { name: "stdout", value: `ran ${command}\n` };
        yield { name: "exit", code: 0, result: { ok: true } };
      },
      result: async () => ({ exitCode: 0, stdout: "", stderr: "" }),
    });
    const options = {
      workspace: {
        runtime: {
          exec: async (command: string, execOptions: unknown) => {
            seen.push(execOptions);
            return handle(command);
          },
          isCallable: (id: string) => id === "js",
        },
      },
      backends: { js: { description: "JavaScript" } },
      defaultBackend: "js",
    } satisfies ReferenceExecOptions;
    const { output } = await callTool({ exec: createExecTool(options) }, "exec", { command: "go", input: [1] });
    expect(output).toEqual({
      command: "go",
      cwd: null,
      backend: "js",
      exitCode: 0,
      stdout: "ran go\n",
      stderr: "",
      result: { ok: true },
    });
    expect(seen).toEqual([{ backend: "js", encoding: "utf8", input: [1] }]);
  });

  it("createAITools takes the original's option object: a share() assets client, shell with backends", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const shares: unknown[] = [];
      // Typed by the original's types (our Workspace's own fs and runtime are wider than its structural ones).
      const assets = {
        share: async (path: string, shareOptions: unknown) => {
          shares.push([path, shareOptions]);
          return `https://assets.test${path}`;
        },
      } satisfies NonNullable<ReferenceAIToolsOptions["workspace"]["assets"]>;
      const rest = {
        read: { maxLines: 5 },
        shell: { backends: { "test-shell": { description: "shell" } }, defaultBackend: "test-shell" },
      } satisfies Omit<ReferenceAIToolsOptions, "workspace">;
      const options = { workspace: { fs: workspace.fs, runtime: workspace.runtime, sessionId: "s9", assets }, ...rest };
      const tools = createAITools(options);
      expect(Object.keys(tools).sort()).toEqual([
        "delete",
        "edit",
        "exec",
        "find",
        "grep",
        "ls",
        "publish",
        "read",
        "write",
      ]);
      expect((await callTool(tools, "publish", { path: "/workspace/out.txt" })).output).toEqual({
        ok: true,
        url: "https://assets.test/workspace/out.txt",
      });
      expect(shares).toEqual([["/workspace/out.txt", { expiresAfter: 3_600_000, prefix: "agent-s9" }]]);
      expect((await callTool(tools, "exec", { command: "echo hi" })).output).toMatchObject({
        exitCode: 0,
        stdout: "hi\n",
      });
    });
  });
});

/** `ls`, `find` and `grep` through the AI SDK: paging and grep's literal default. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";

describe("ls", () => {
  it("(21) 250 entries: 200 with nextOffset 200, then 50 without", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace/many", { recursive: true });
      for (let i = 0; i < 250; i++) await workspace.fs.writeFile(`/workspace/many/f${String(i).padStart(3, "0")}`, "x");
      const tools = createAITools({ workspace });
      const first = (await callTool(tools, "ls", { path: "/workspace/many" })).output as {
        entries: { name: string }[];
      };
      expect(first).toMatchObject({ path: "/workspace/many", count: 200, nextOffset: 200 });
      const entries = first.entries;
      expect(entries[0]).toEqual({
        name: "f000",
        size: 1,
        mtime: expect.any(Number),
        isFile: true,
        isDirectory: false,
        isSymbolicLink: false,
      });
      expect(entries.map((e) => e.name)).toEqual([...entries.map((e) => e.name)].sort());
      const second = (await callTool(tools, "ls", { path: "/workspace/many", offset: 200 })).output;
      expect(second).toMatchObject({ count: 50 });
      expect(second).not.toHaveProperty("nextOffset");
      expect((second as { entries: { name: string }[] }).entries[0]?.name).toBe("f200");
    });
  });

  it("a limit outside 1–1000 is rejected by the schema before the tool runs", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await expect(callTool(createAITools({ workspace }), "ls", { path: "/", limit: 1001 })).rejects.toThrow(
        /no result for ls/,
      );
    });
  });
});

describe("find", () => {
  it("globs with *, ** and ?, from /workspace by default, paged", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace/src/lib", { recursive: true });
      await workspace.fs.writeFile("/workspace/src/a.ts", "");
      await workspace.fs.writeFile("/workspace/src/lib/b.ts", "");
      await workspace.fs.writeFile("/workspace/src/lib/c.js", "");
      const tools = createAITools({ workspace });
      expect((await callTool(tools, "find", { pattern: "**/*.ts" })).output).toEqual({
        path: "/workspace",
        pattern: "**/*.ts",
        count: 2,
        entries: [
          { path: "/workspace/src/a.ts", type: "file" },
          { path: "/workspace/src/lib/b.ts", type: "file" },
        ],
      });
      expect((await callTool(tools, "find", { pattern: "src/*.ts" })).output).toMatchObject({ count: 1 });
      expect((await callTool(tools, "find", { pattern: "src/lib/?.js" })).output).toMatchObject({
        entries: [{ path: "/workspace/src/lib/c.js", type: "file" }],
      });
      expect((await callTool(tools, "find", { pattern: "src/*" })).output).toMatchObject({
        entries: [
          { path: "/workspace/src/a.ts", type: "file" },
          { path: "/workspace/src/lib", type: "dir" },
        ],
      });
      const paged = (await callTool(tools, "find", { pattern: "**", limit: 2 })).output;
      expect(paged).toMatchObject({ count: 2, nextOffset: 2 });
    });
  });
});

describe("grep", () => {
  it("(22) literal by default and case-sensitive", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/t.txt", "A.B\nAxB\na.b\n");
      const tools = createAITools({ workspace });
      expect((await callTool(tools, "grep", { query: "A.B" })).output).toEqual({
        path: "/workspace",
        query: "A.B",
        count: 1,
        matches: [{ path: "/workspace/t.txt", line: 1, text: "A.B" }],
      });
      expect((await callTool(tools, "grep", { query: "A.B", regex: true })).output).toMatchObject({ count: 2 });
      expect((await callTool(tools, "grep", { query: "a.b", ignoreCase: true })).output).toMatchObject({ count: 2 });
      expect((await callTool(tools, "grep", { query: "(", regex: true })).output).toEqual({
        error: expect.stringMatching(/^Invalid regular expression "\("/),
      });
    });
  });

  it("context lines, include globs and paging", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace/d", { recursive: true });
      await workspace.fs.writeFile("/workspace/d/a.ts", "x\nneedle\ny\n");
      await workspace.fs.writeFile("/workspace/d/b.md", "needle\n");
      const tools = createAITools({ workspace });
      const withContext = await callTool(tools, "grep", { query: "needle", include: "**/*.ts", context: 1 });
      expect(withContext.output).toMatchObject({
        count: 1,
        matches: [
          {
            path: "/workspace/d/a.ts",
            line: 2,
            context: [
              { line: 1, text: "x", isMatch: false },
              { line: 2, text: "needle", isMatch: true },
              { line: 3, text: "y", isMatch: false },
            ],
          },
        ],
      });
      const page = await callTool(tools, "grep", { query: "needle", limit: 1 });
      expect(page.output).toMatchObject({ count: 1, nextOffset: 1 });
    });
  });
});

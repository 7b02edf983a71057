/** Which tools `createAITools` hands out (`docs/tools.md`). */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";

const share = async (path: string) => `https://assets.test${path}`;

describe("createAITools", () => {
  it("(19) default 7 tools; readonly 4; exec only with shell; publish only with assets", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      expect(Object.keys(createAITools({ workspace })).sort()).toEqual(
        ["delete", "edit", "find", "grep", "ls", "read", "write"].sort(),
      );
      expect(Object.keys(createAITools({ workspace, readonly: true })).sort()).toEqual(["find", "grep", "ls", "read"]);
      expect(Object.keys(createAITools({ workspace, readonly: true, shell: true }))).not.toContain("exec");
      expect(Object.keys(createAITools({ workspace, shell: true }))).toContain("exec");
      expect(Object.keys(createAITools({ workspace }))).not.toContain("publish");
    });
    await inToolsWorkspace(
      async ({ workspace }) => {
        const tools = createAITools({ workspace, shell: true });
        expect(Object.keys(tools).sort()).toEqual(
          ["delete", "edit", "exec", "find", "grep", "ls", "publish", "read", "write"].sort(),
        );
        expect(Object.keys(createAITools({ workspace, assets: false }))).not.toContain("publish");
        expect(Object.keys(createAITools({ workspace, readonly: true }))).not.toContain("publish");
      },
      { assets: { share } as never },
    );
  });

  it("tools report failures as { error } instead of throwing", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createAITools({ workspace });
      const { output } = await callTool(tools, "read", { path: "/workspace/missing.txt" });
      expect(output).toEqual({ error: "No such file: /workspace/missing.txt" });
      const ls = await callTool(tools, "ls", { path: "/nope" });
      expect(ls.output).toMatchObject({ error: expect.stringMatching(/^ENOENT/) });
    });
  });

  it("relative paths are taken from /workspace", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createAITools({ workspace });
      await callTool(tools, "write", { path: "notes/a.txt", content: "hi" });
      expect(await workspace.fs.readFile("/workspace/notes/a.txt", "utf8")).toBe("hi");
    });
  });
});

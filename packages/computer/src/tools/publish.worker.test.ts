/** `publish` through the AI SDK. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";
import type { ToolShareOptions } from "./types.js";

describe("publish", () => {
  it("(30) with sessionId s1: prefix agent-s1 and 3 600 000 ms by default", async () => {
    const calls: [string, ToolShareOptions][] = [];
    const assets = {
      publish: async (path: string, options: ToolShareOptions) => {
        calls.push([path, options]);
        return { url: `https://assets.test/${options.prefix}${path}` };
      },
    };
    await inToolsWorkspace(
      async ({ workspace }) => {
        const tools = createAITools({ workspace });
        expect((await callTool(tools, "publish", { path: "out.png" })).output).toEqual({
          ok: true,
          url: "https://assets.test/agent-s1/workspace/out.png",
        });
        expect(calls).toEqual([["/workspace/out.png", { expiresAfter: 3_600_000, prefix: "agent-s1" }]]);
        await callTool(tools, "publish", { path: "/workspace/b.txt", expiresAfterMs: 5000 });
        expect(calls[1]).toEqual(["/workspace/b.txt", { expiresAfter: 5000, prefix: "agent-s1" }]);
      },
      { sessionId: "s1", assets },
    );
  });

  it("no prefix without a session id; a failed upload is { ok: false, error }", async () => {
    const calls: ToolShareOptions[] = [];
    const assets = {
      publish: async (_path: string, options: ToolShareOptions) => {
        calls.push(options);
        throw new Error("ENOENT: no such file or directory, open '/workspace/x'");
      },
    };
    await inToolsWorkspace(
      async ({ workspace }) => {
        const { output } = await callTool(createAITools({ workspace }), "publish", { path: "/workspace/x" });
        expect(output).toEqual({ ok: false, error: "ENOENT: no such file or directory, open '/workspace/x'" });
        expect(calls).toEqual([{ expiresAfter: 3_600_000 }]);
      },
      { assets },
    );
  });
});

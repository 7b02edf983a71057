/**
 * 0.8.0's tool entry points over a real Workspace: `createAITools` from
 * `./tools/ai-sdk` (exec by default, `exec: {}`, the deprecated `shell`)
 * driven by the AI SDK's mock model, `defineExec` from `./tools/core` with
 * no agent library, and the exec tool's note for output the runtime cut,
 * which names the very file the runtime saved.
 */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./ai-sdk.js";
import { defineExec } from "./core.js";
import type { ExecOutput } from "./exec.js";

describe("./tools/ai-sdk createAITools", () => {
  it("has exec whenever the workspace has a backend; exec: {} and readonly leave it out", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      expect(Object.keys(createAITools({ workspace })).sort()).toEqual(
        ["delete", "edit", "exec", "find", "grep", "ls", "read", "write"].sort(),
      );
      expect(Object.keys(createAITools({ workspace, exec: {} }))).not.toContain("exec");
      expect(Object.keys(createAITools({ workspace, readonly: true })).sort()).toEqual(["find", "grep", "ls", "read"]);
      expect(Object.keys(createAITools({ workspace, shell: true }))).toContain("exec");
    });
  });

  it("the exec description puts the caller's text before the generic line", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createAITools({ workspace, exec: { "test-shell": { description: "The test shell." } } });
      expect(tools.exec?.description).toContain("- test-shell (default): The test shell.");
    });
  });

  it("output the runtime cut: exec's note names the saved file, which the read tool then reads whole", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const full = Array.from({ length: 6 }, (_, i) => `row ${i + 1}\n`).join("");
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/rows.txt", full);
      const tools = createAITools({ workspace, execOutput: { maxLines: 2 } });
      const { output } = await callTool(tools, "exec", { command: "cat rows.txt" });
      const result = output as Extract<ExecOutput, { exitCode: number | null }>;
      const saved = result.truncated?.stdout;
      expect(saved).toMatchObject({ status: "saved", totalBytes: full.length, totalLines: 6, firstLine: 5 });
      const path = saved?.status === "saved" ? saved.path : "";
      expect(path).toMatch(/^\/\.computer\/output\/test-shell\.[^/]+\.stdout\.log$/);
      expect(result.stdout).toBe(
        `row 5\nrow 6\n[Output of ${full.length} bytes, 6 lines was cut. Full output: ${path}]`,
      );
      const read = await callTool(tools, "read", { path });
      expect(read.output).toMatchObject({ content: expect.stringContaining("row 1") });
      expect(await workspace.fs.readFile(path, "utf8")).toBe(full);
    });
  });
});

describe("./tools/core defineExec", () => {
  it("runs a command without any agent library: snapshots end with the terminal one", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const exec = defineExec({ workspace });
      expect(exec.description).toContain("test-shell");
      expect(exec.inputSchema.safeParse({ command: "echo hi" }).success).toBe(true);
      expect(exec.inputSchema.safeParse({ cmd: "echo hi" }).success).toBe(false);
      expect(exec.prepareArguments({ command: "x", input: '{"n":1}' })).toEqual({ command: "x", input: { n: 1 } });
      const snapshots: ExecOutput[] = [];
      for await (const snapshot of exec.execute({ command: "echo hi" })) snapshots.push(snapshot);
      expect(snapshots.at(-1)).toMatchObject({
        command: "echo hi",
        exitCode: 0,
        stdout: "hi\n",
        backend: "test-shell",
      });
    });
  });
});

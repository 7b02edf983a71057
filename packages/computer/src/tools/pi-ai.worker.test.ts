/**
 * The pi adapter driven by pi itself (`@earendil-works/pi-ai`): its faux
 * provider plays a scripted model through `Models.complete`, pi's
 * `validateToolArguments` checks every call against the JSON schemas we
 * declare, and our `execute` answers with the content of pi's tool result
 * messages, over a real Workspace in a Durable Object.
 */
import {
  type AssistantMessage,
  type Context,
  createModels,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
  type Tool,
  type ToolCall,
  type ToolResultMessage,
  validateToolArguments,
} from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { createPiTools, type PiTools } from "./pi-ai.js";

/** pi's loop: ask the model, run each tool call it makes (validated the way pi does), until it stops calling. */
async function runAgent(piTools: PiTools, script: AssistantMessage[]) {
  const faux = fauxProvider();
  const models = createModels();
  models.setProvider(faux.provider);
  faux.setResponses(script);
  const model = faux.getModel();
  const context: Context = {
    messages: [{ role: "user", content: "go", timestamp: 0 }],
    tools: piTools.tools as Tool[],
  };
  const results: ToolResultMessage[] = [];
  for (let turn = 0; turn < script.length; turn++) {
    const reply = await models.complete(model, context);
    context.messages.push(reply);
    const calls = reply.content.filter((block): block is ToolCall => block.type === "toolCall");
    if (calls.length === 0) break;
    for (const call of calls) {
      const tool = piTools.tools.find((each) => each.name === call.name) as Tool;
      const checked = { ...call, arguments: validateToolArguments(tool, call) };
      const result = await piTools.execute(checked);
      const message = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: result.content,
        isError: result.isError,
        timestamp: 0,
      } as ToolResultMessage;
      context.messages.push(message);
      results.push(message);
    }
  }
  return { results, calls: faux.state.callCount };
}

const text = (message: ToolResultMessage | undefined) =>
  (message?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

describe("createPiTools", () => {
  it("a scripted pi model writes a file, runs a command that reads it, and stops", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const piTools = createPiTools({ workspace });
      expect(piTools.tools.map((tool) => tool.name).sort()).toEqual(
        ["delete", "edit", "exec", "find", "grep", "ls", "read", "write"].sort(),
      );
      expect(piTools.tools[0]?.parameters).toMatchObject({ type: "object" });
      expect(piTools.tools[0]?.constrainedSampling).toEqual({ type: "json_schema", strict: "prefer" });
      const { results, calls } = await runAgent(piTools, [
        fauxAssistantMessage([fauxToolCall("write", { path: "notes/a.txt", content: "hello pi\n" })], {
          stopReason: "toolUse",
        }),
        fauxAssistantMessage([fauxToolCall("exec", { command: "cat notes/a.txt" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ]);
      expect(calls).toBe(3);
      expect(results.map((result) => result.isError)).toEqual([false, false]);
      expect(await workspace.fs.readFile("/workspace/notes/a.txt", "utf8")).toBe("hello pi\n");
      expect(JSON.parse(text(results[1]))).toMatchObject({
        exitCode: 0,
        stdout: "hello pi\n",
        command: "cat notes/a.txt",
      });
    });
  });

  it("an unknown tool, bad arguments and a failing tool come back as isError results, never exceptions", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const piTools = createPiTools({ workspace, readonly: true });
      expect(piTools.tools.map((tool) => tool.name).sort()).toEqual(["find", "grep", "ls", "read"]);
      expect(piTools.readOnly).toEqual(["read", "ls", "find", "grep"]);
      const unknown = await piTools.execute({ id: "1", name: "write", arguments: { path: "x", content: "" } });
      expect(unknown.isError).toBe(true);
      expect(text(unknown as ToolResultMessage)).toMatch(/^Unknown tool "write"/);
      const bad = await piTools.execute({ id: "2", name: "read", arguments: { path: 7 } });
      expect(bad.isError).toBe(true);
      expect(text(bad as ToolResultMessage)).toMatch(/^Invalid arguments for read/);
      const missing = await piTools.execute({ id: "3", name: "read", arguments: { path: "/workspace/none.txt" } });
      expect(missing).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "No such file: /workspace/none.txt" }],
      });
      // pi's own validation, against the schema we declare, refuses a call without the required path.
      const read = piTools.tools.find((tool) => tool.name === "read") as Tool;
      expect(() => validateToolArguments(read, fauxToolCall("read", {}))).toThrow(/path/);
    });
  });

  it("constrainedSampling: false leaves it out; exec: {} leaves out exec", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const piTools = createPiTools({ workspace, constrainedSampling: false, exec: {} });
      expect(piTools.tools.some((tool) => "constrainedSampling" in tool)).toBe(false);
      expect(piTools.tools.map((tool) => tool.name)).not.toContain("exec");
    });
  });
});

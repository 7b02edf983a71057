/**
 * The TanStack adapter driven by TanStack AI itself (`@tanstack/ai`'s
 * `chat()`): a scripted text adapter streams AG-UI tool calls, TanStack's
 * agent loop validates the arguments against our zod schemas, runs our
 * server tools over a real Workspace in a Durable Object, and feeds the
 * results back to the model; approval and custom events go through the
 * library the same way.
 */
import { type AnyTextAdapter, chat, type StreamChunk } from "@tanstack/ai";
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { createTanStackTools } from "./tanstack-ai.js";

interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
}

/** A model that issues the calls of step N, then answers "done"; it records the messages it was sent. */
function scriptedAdapter(script: ScriptedCall[][]) {
  const seen: unknown[][] = [];
  let step = 0;
  const adapter = {
    kind: "text",
    name: "scripted",
    model: "scripted-1",
    "~types": {},
    async *chatStream(options: { messages: unknown[] }) {
      seen.push(structuredClone(options.messages));
      const runId = `run-${step}`;
      const threadId = "thread";
      const calls = script[step] ?? [];
      const at = step++;
      yield { type: "RUN_STARTED", runId, threadId, timestamp: 0 };
      if (calls.length === 0) {
        yield { type: "TEXT_MESSAGE_START", messageId: `m-${at}`, role: "assistant", timestamp: 0 };
        yield { type: "TEXT_MESSAGE_CONTENT", messageId: `m-${at}`, delta: "done", timestamp: 0 };
        yield { type: "TEXT_MESSAGE_END", messageId: `m-${at}`, timestamp: 0 };
        yield { type: "RUN_FINISHED", runId, threadId, finishReason: "stop", timestamp: 0 };
        return;
      }
      for (const [i, call] of calls.entries()) {
        const toolCallId = `call-${at}-${i}`;
        yield { type: "TOOL_CALL_START", toolCallId, toolCallName: call.name, toolName: call.name, timestamp: 0 };
        yield { type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(call.input), timestamp: 0 };
        yield { type: "TOOL_CALL_END", toolCallId, input: call.input, timestamp: 0 };
      }
      yield { type: "RUN_FINISHED", runId, threadId, finishReason: "tool_calls", timestamp: 0 };
    },
    async structuredOutput() {
      throw new Error("not scripted");
    },
  };
  return { adapter: adapter as unknown as AnyTextAdapter, seen };
}

async function drain(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("createTanStackTools", () => {
  it("TanStack's chat loop runs our tools: write, then exec reads the file back", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createTanStackTools({ workspace });
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ["delete", "edit", "exec", "find", "grep", "ls", "read", "write"].sort(),
      );
      const { adapter, seen } = scriptedAdapter([
        [{ name: "write", input: { path: "notes/t.txt", content: "hello tanstack\n" } }],
        [{ name: "exec", input: { command: "cat notes/t.txt" } }],
      ]);
      const chunks = await drain(
        chat({ adapter, messages: [{ role: "user", content: "go" }], tools }) as AsyncIterable<StreamChunk>,
      );
      expect(await workspace.fs.readFile("/workspace/notes/t.txt", "utf8")).toBe("hello tanstack\n");
      expect(seen.length).toBe(3);
      const results = chunks.filter((chunk) => chunk.type === "TOOL_CALL_RESULT");
      expect(results.length).toBe(2);
      const execResult = JSON.parse(String((results[1] as { content: unknown }).content));
      expect(execResult).toMatchObject({ exitCode: 0, stdout: "hello tanstack\n" });
      // The model's third request carries both tool results.
      expect(JSON.stringify(seen[2])).toContain("hello tanstack");
    });
  });

  it('approve: "mutating" makes TanStack stop for approval before a write, which then does not run', async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createTanStackTools({ workspace, approve: "mutating", format: "object" });
      expect(
        Object.keys(tools)
          .filter((name) => tools[name]?.needsApproval)
          .sort(),
      ).toEqual(["delete", "edit", "exec", "write"].sort());
      const { adapter } = scriptedAdapter([[{ name: "write", input: { path: "held.txt", content: "x" } }]]);
      const chunks = await drain(
        chat({
          adapter,
          messages: [{ role: "user", content: "go" }],
          tools: Object.values(tools),
        }) as AsyncIterable<StreamChunk>,
      );
      // TanStack ends the run with an approval interrupt for the write instead of running it.
      expect(chunks.at(-1)).toMatchObject({
        type: "RUN_FINISHED",
        outcome: { interrupts: [{ message: "Approval required to run write", metadata: { toolName: "write" } }] },
      });
      expect(chunks.some((chunk) => chunk.type === "TOOL_CALL_RESULT")).toBe(false);
      expect(workspace.provider().existsSync("/workspace/held.txt")).toBe(false);
    });
  });

  it("lazy and bad options", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createTanStackTools({ workspace, lazy: ["grep"], readonly: true });
      expect(tools.filter((tool) => tool.lazy).map((tool) => tool.name)).toEqual(["grep"]);
      expect(() => createTanStackTools({ workspace, format: "map" as "array" })).toThrow(
        'format must be "array" or "object"; got "map"',
      );
    });
  });
});

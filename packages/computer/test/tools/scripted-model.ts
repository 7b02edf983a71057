/**
 * A language model that follows a script instead of thinking: step N issues
 * the tool calls listed for it, and after the last step it answers "done".
 * It is the AI SDK's own `MockLanguageModelV3`, so inputs travel as JSON text
 * and go through the SDK's schema validation, tool execution and
 * `toModelOutput` exactly as a real provider's would.
 */
import { generateText, stepCountIs, streamText, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";

export interface ScriptedCall {
  tool: string;
  input: unknown;
}

type Usage = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>["usage"];

const usage: Usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function calls(step: number, script: readonly (readonly ScriptedCall[])[]) {
  return (script[step] ?? []).map((call, i) => ({
    type: "tool-call" as const,
    toolCallId: `call-${step}-${i}`,
    toolName: call.tool,
    input: JSON.stringify(call.input),
  }));
}

export function scriptedModel(script: readonly (readonly ScriptedCall[])[]): MockLanguageModelV3 {
  let generateStep = 0;
  let streamStep = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const step = generateStep++;
      if (step < script.length) {
        return {
          content: calls(step, script),
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
    doStream: async () => {
      const step = streamStep++;
      const parts =
        step < script.length
          ? [
              { type: "stream-start" as const, warnings: [] },
              ...calls(step, script),
              { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: undefined }, usage },
            ]
          : [
              { type: "stream-start" as const, warnings: [] },
              { type: "text-start" as const, id: "t" },
              { type: "text-delta" as const, id: "t", delta: "done" },
              { type: "text-end" as const, id: "t" },
              { type: "finish" as const, finishReason: { unified: "stop" as const, raw: undefined }, usage },
            ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

/** Runs the script through `generateText`; returns the SDK's result and the model (to inspect its prompts). */
export async function runScript(tools: ToolSet, script: readonly (readonly ScriptedCall[])[]) {
  const model = scriptedModel(script);
  const result = await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(script.length + 1) });
  return { result, model };
}

/** One tool call through the SDK: what the tool returned, and what the model was shown. */
export async function callTool(
  tools: ToolSet,
  name: string,
  input: unknown,
): Promise<{ output: unknown; modelOutput: unknown }> {
  const { result, model } = await runScript(tools, [[{ tool: name, input }]]);
  const step = result.steps[0];
  const toolResult = step?.toolResults[0];
  const toolError = step?.content.find((part) => part.type === "tool-error");
  if (!toolResult) throw new Error(`no result for ${name}: ${JSON.stringify(toolError ?? step?.content)}`);
  return { output: toolResult.output, modelOutput: modelOutputOf(model, 1, `call-0-0`) };
}

/** The tool result as the model saw it in the prompt of its `call`-th request. */
export function modelOutputOf(model: MockLanguageModelV3, call: number, toolCallId: string): unknown {
  const prompt = model.doGenerateCalls[call]?.prompt ?? model.doStreamCalls[call]?.prompt ?? [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolCallId === toolCallId) return part.output;
    }
  }
  return undefined;
}

/** Streams one tool call; returns every result the SDK emitted for it, preliminary ones first. */
export async function streamTool(
  tools: ToolSet,
  name: string,
  input: unknown,
  options: { abortSignal?: AbortSignal } = {},
): Promise<{ preliminary: unknown[]; final: unknown; errors: unknown[] }> {
  const model = scriptedModel([[{ tool: name, input }]]);
  const result = streamText({
    model,
    tools,
    prompt: "go",
    stopWhen: stepCountIs(2),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  const preliminary: unknown[] = [];
  const errors: unknown[] = [];
  let final: unknown;
  for await (const part of result.fullStream) {
    if (part.type === "tool-result") {
      if (part.preliminary === true) preliminary.push(part.output);
      else final = part.output;
    }
    if (part.type === "tool-error" || part.type === "error") errors.push(part);
  }
  return { preliminary, final, errors };
}

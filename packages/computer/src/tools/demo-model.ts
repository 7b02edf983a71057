/**
 * The demo model — scripted, not an LLM. It answers through the AI SDK's
 * own LanguageModel interface (`MockLanguageModelV3`), so its tool calls go
 * through the SDK's schema validation and tool execution exactly as a real
 * provider's would, and it calls the real tools on the real workspace. What
 * it does is fixed: it works out which step of the script it is on from the
 * conversation it is shown (the number of assistant messages since the last
 * user message), so it needs no state and runs offline.
 */
import { MockLanguageModelV3 } from "ai/test";

type CallOptions = Parameters<MockLanguageModelV3["doStream"]>[0];
type Message = CallOptions["prompt"][number];

export const DEMO_LABEL = "demo model — scripted, not an LLM";

export interface DemoTurn {
  /** The latest user message, as text. */
  text: string;
  /** 1 for the conversation's first user message, 2 for the second, … */
  turn: number;
  /** The outputs of the tool calls made since that message, oldest first. */
  results: unknown[];
}

export interface DemoStep {
  say?: string;
  calls?: { tool: string; input: unknown }[];
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/** Where the conversation stands: the turn, and what the tools returned so far in it. */
function readTurn(prompt: CallOptions["prompt"]): { turn: DemoTurn; step: number } {
  const lastUser = prompt.findLastIndex((message) => message.role === "user");
  const since = prompt.slice(lastUser + 1);
  const results: unknown[] = [];
  for (const message of since) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      results.push("value" in part.output ? part.output.value : part.output);
    }
  }
  return {
    turn: {
      text: lastUser < 0 ? "" : textOf(prompt[lastUser] as Message),
      turn: prompt.filter((message) => message.role === "user").length,
      results,
    },
    step: since.filter((message) => message.role === "assistant").length,
  };
}

/** A model that plays `script(turn)[step]`; the script's last step should only `say`. Streams or not. */
export function demoModel(script: (turn: DemoTurn) => DemoStep[]): MockLanguageModelV3 {
  const play = (prompt: CallOptions["prompt"]) => {
    const { turn, step } = readTurn(prompt);
    const steps = script(turn);
    const current = steps[Math.min(step, steps.length - 1)] ?? {};
    const calls = (step < steps.length ? (current.calls ?? []) : []).map((call, i) => ({
      type: "tool-call" as const,
      toolCallId: `demo-${turn.turn}-${step}-${i}`,
      toolName: call.tool,
      input: JSON.stringify(call.input),
    }));
    const finishReason = { unified: calls.length > 0 ? ("tool-calls" as const) : ("stop" as const), raw: undefined };
    return { id: `t${step}`, say: current.say ?? "", calls, finishReason };
  };
  return new MockLanguageModelV3({
    provider: "demo",
    modelId: "scripted",
    doGenerate: async ({ prompt }) => {
      const { say, calls, finishReason } = play(prompt);
      const text = say === "" ? [] : [{ type: "text" as const, text: say }];
      return { content: [...text, ...calls], finishReason, usage, warnings: [] };
    },
    doStream: async ({ prompt }) => {
      const { id, say, calls, finishReason } = play(prompt);
      // Words one by one, so a client sees the text arrive in pieces as it would from a real model.
      const words = say.split(/(?<= )/).filter(Boolean);
      const parts = [
        { type: "stream-start" as const, warnings: [] },
        ...(words.length > 0 ? [{ type: "text-start" as const, id }] : []),
        ...words.map((delta) => ({ type: "text-delta" as const, id, delta })),
        ...(words.length > 0 ? [{ type: "text-end" as const, id }] : []),
        ...calls,
        { type: "finish" as const, finishReason, usage },
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

/**
 * The scripted demo model: what the chat panel runs when no model is
 * configured. It is the AI SDK's `MockLanguageModelV3`, so its tool calls
 * go through the SDK exactly as a real model's would — schemas, execution
 * of the real tools on the real workspace, results fed back — but its
 * "thinking" is a fixed script over the last user message:
 *
 *   "run <command>"        → exec <command> on worker-shell
 *   names a file (a.txt)   → read each named file (at most three)
 *   anything else          → ls /workspace
 *
 * and once the tools answered, a reply that says what they returned. It
 * never pretends to be a model: every reply starts by saying it is the demo.
 */
import { MockLanguageModelV3 } from "ai/test";

type StreamOptions = Parameters<MockLanguageModelV3["doStream"]>[0];
type Prompt = StreamOptions["prompt"];
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

export const DEMO_PREFIX = "[demo model]";
const MAX_READS = 3;

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

export function demoModel(): MockLanguageModelV3 {
  let calls = 0;
  return new MockLanguageModelV3({
    provider: "console-demo",
    modelId: "scripted-demo",
    doStream: async ({ prompt }) => {
      const step = calls++;
      return { stream: streamOf(partsFor(prompt, step)) };
    },
  });
}

/** The calls for the user's words, or — once their results are in the prompt — the reply. */
function partsFor(prompt: Prompt, step: number): StreamPart[] {
  const lastUser = prompt.findLastIndex((message) => message.role === "user");
  const results = prompt
    .slice(lastUser + 1)
    .flatMap((message) =>
      message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
    );
  if (results.length === 0) {
    const text = textOf(prompt[lastUser]);
    return [
      { type: "stream-start", warnings: [] },
      ...callsFor(text).map(
        (call, i): StreamPart => ({
          type: "tool-call",
          toolCallId: `demo-${step}-${i}`,
          toolName: call.tool,
          input: JSON.stringify(call.input),
        }),
      ),
      { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
    ];
  }
  const inputs = new Map(
    prompt
      .slice(lastUser + 1)
      .flatMap((message) =>
        message.role === "assistant" ? message.content.filter((part) => part.type === "tool-call") : [],
      )
      .map((call) => [call.toolCallId, call.input] as const),
  );
  const lines = results.map(
    (result) =>
      `- ${result.toolName}${argumentOf(inputs.get(result.toolCallId))}: ${summarize(result.toolName, result.output)}`,
  );
  const reply = `${DEMO_PREFIX} No model is configured, so a script picked the tools. They returned:\n${lines.join("\n")}`;
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "reply" },
    { type: "text-delta", id: "reply", delta: reply },
    { type: "text-end", id: "reply" },
    { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
  ];
}

export function callsFor(text: string): ToolCall[] {
  const run = /^\s*(?:run|\$)\s+(.+)$/is.exec(text);
  if (run) return [{ tool: "exec", input: { command: (run[1] as string).trim(), backend: "worker-shell" } }];
  const files = [...new Set(text.match(/[\w./-]*\w\.[A-Za-z0-9]+\b/g) ?? [])].slice(0, MAX_READS);
  if (files.length > 0) return files.map((path) => ({ tool: "read", input: { path } }));
  return [{ tool: "ls", input: { path: "/workspace" } }];
}

/** The one argument worth repeating: the path or the command. */
function argumentOf(input: unknown): string {
  const { path, command } = (input ?? {}) as { path?: unknown; command?: unknown };
  const argument = typeof command === "string" ? command : path;
  return typeof argument === "string" ? ` ${argument}` : "";
}

function textOf(message: Prompt[number] | undefined): string {
  if (message?.role !== "user") return "";
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

type ToolOutput = Extract<
  Extract<Prompt[number], { role: "tool" }>["content"][number],
  { type: "tool-result" }
>["output"];

/** One line about what a tool returned, in the words of that tool's result shape. */
function summarize(tool: string, output: ToolOutput): string {
  const value: unknown = "value" in output ? output.value : undefined;
  if (typeof value === "string") return clip(value);
  if (typeof value !== "object" || value === null) return clip(JSON.stringify(value) ?? "nothing");
  const record = value as Record<string, unknown>;
  if (typeof record.error === "string") return `error: ${clip(record.error)}`;
  if (tool === "ls" && Array.isArray(record.entries)) {
    const names = (record.entries as Array<{ name: string; isDirectory: boolean }>).map((entry) =>
      entry.isDirectory ? `${entry.name}/` : entry.name,
    );
    return `${record.count} entries in ${record.path}: ${clip(names.join(", ") || "(empty)")}`;
  }
  if (tool === "exec") {
    return `exit ${record.exitCode} on ${record.backend}: ${clip(String(record.stdout || record.stderr || ""))}`;
  }
  if (tool === "read" && typeof record.content === "string") return clip(record.content);
  return clip(JSON.stringify(value));
}

function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function streamOf(parts: StreamPart[]): ReadableStream<StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

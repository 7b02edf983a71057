/**
 * The chat panel's agent: the AI SDK's `streamText` with the workspace's
 * tools (`createAITools`: read, ls, find, grep, write, edit, delete, exec on
 * any of the three backends), run inside the Durable Object next to the
 * files. Its steps go to the page as server-sent events:
 *
 *   event: model        {kind: "openai-compatible", model, baseURL} | {kind: "demo", reason}
 *   event: text         {text}                        a piece of the answer
 *   event: tool-call    {id, name, input}
 *   event: tool-result  {id, name, output}
 *   event: tool-error   {id, name, message}
 *   event: error        {message}
 *   event: done         {finishReason, steps}
 *
 * The model comes from the environment (OPENAI_BASE_URL, OPENAI_API_KEY,
 * OPENAI_MODEL: any OpenAI-compatible endpoint). With none configured the
 * agent says so and runs `demoModel()`, a scripted stand-in that calls the
 * real tools deterministically (demo.ts).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { Workspace } from "@cloudflare/computer";
import { createAITools } from "@cloudflare/computer/tools";
import { type LanguageModel, type ModelMessage, stepCountIs, streamText } from "ai";
import { demoModel } from "./demo.js";
import { errorBody, sse } from "./http.js";

export interface ModelEnv {
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
}

export type ModelChoice =
  | { kind: "openai-compatible"; model: string; baseURL: string }
  | { kind: "demo"; reason: string };

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** Tool-calling rounds per message; enough for look → change → check. */
const MAX_STEPS = 12;
const MAX_MESSAGES = 50;
const OPENAI_BASE_URL = "https://api.openai.com/v1";

const SYSTEM = [
  "You are the agent of a workspace console. The workspace's files are under /workspace;",
  "the person sees the same files in an editor and runs commands in terminals next to you.",
  "Use the tools to look before you change anything, keep changes small, and say what you did.",
].join(" ");

const EXEC_BACKENDS = {
  "worker-shell": {
    description: "just-bash in a Worker, quick to start: cat, ls, grep, sed, awk, sort, jq, curl, … over the workspace",
  },
  "container-shell": {
    description: "a Linux container (the local container host in dev): /bin/sh and the machine's own programs",
  },
  "worker-javascript": {
    description: "an ES module in a fresh Worker; the default export's return value is the result; node:fs/promises",
  },
};

/** A configured endpoint needs a model and a base URL or key; without a base URL it is OpenAI's. */
export function chooseModel(env: ModelEnv): ModelChoice {
  const model = env.OPENAI_MODEL?.trim();
  const baseURL = env.OPENAI_BASE_URL?.trim();
  const key = env.OPENAI_API_KEY?.trim();
  if (model && (baseURL || key)) return { kind: "openai-compatible", model, baseURL: baseURL || OPENAI_BASE_URL };
  const missing = [
    ...(baseURL || key ? [] : ["OPENAI_BASE_URL or OPENAI_API_KEY"]),
    ...(model ? [] : ["OPENAI_MODEL"]),
  ];
  return {
    kind: "demo",
    reason: `no model configured (set ${missing.join(" and ")}); using the scripted demo model, which calls real tools`,
  };
}

function languageModel(choice: ModelChoice, env: ModelEnv): LanguageModel {
  if (choice.kind === "demo") return demoModel();
  const key = env.OPENAI_API_KEY?.trim();
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: choice.baseURL,
    ...(key ? { apiKey: key } : {}),
  });
  return provider.chatModel(choice.model);
}

export function parseChatBody(value: unknown): ChatMessage[] | string {
  const { messages } = value as { messages?: unknown };
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
    return `messages must be an array of 1–${MAX_MESSAGES} {role, content}`;
  }
  for (const message of messages) {
    const { role, content } = (message ?? {}) as Record<string, unknown>;
    if ((role !== "user" && role !== "assistant") || typeof content !== "string") {
      return 'each message is {role: "user" | "assistant", content: string}';
    }
  }
  if ((messages.at(-1) as ChatMessage).role !== "user") return "the last message must be the user's";
  return (messages as ChatMessage[]).map(({ role, content }) => ({ role, content }));
}

export function chat(workspace: Workspace, env: ModelEnv, messages: ChatMessage[]): Response {
  const choice = chooseModel(env);
  return sse(async (send) => {
    await send("model", choice);
    const result = streamText({
      model: languageModel(choice, env),
      system: SYSTEM,
      messages: messages satisfies ModelMessage[],
      tools: createAITools({ workspace, shell: { backends: EXEC_BACKENDS } }),
      stopWhen: stepCountIs(MAX_STEPS),
    });
    let steps = 0;
    let finishReason = "unknown";
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          await send("text", { text: part.text });
          break;
        case "tool-call":
          await send("tool-call", { id: part.toolCallId, name: part.toolName, input: part.input });
          break;
        case "tool-result":
          // exec streams running snapshots first; the page shows only the final one.
          if (part.preliminary !== true) {
            await send("tool-result", { id: part.toolCallId, name: part.toolName, output: part.output });
          }
          break;
        case "tool-error":
          await send("tool-error", { id: part.toolCallId, name: part.toolName, ...errorBody(part.error) });
          break;
        case "error":
          await send("error", errorBody(part.error));
          break;
        case "finish-step":
          steps += 1;
          break;
        case "finish":
          finishReason = part.finishReason;
          break;
      }
    }
    await send("done", { finishReason, steps });
  });
}

/**
 * Which language model the agent talks to, from configuration alone:
 *
 * 1. `OPENAI_BASE_URL` (+ `OPENAI_API_KEY`, `OPENAI_MODEL`): any
 *    OpenAI-compatible chat completions endpoint (OpenAI, a local llama.cpp
 *    or vLLM server, a gateway, …).
 * 2. The Workers AI binding `AI` (deployed; `WORKERS_AI_MODEL` picks the
 *    model). `npm run dev` sets `WORKERS_AI=off`: locally the binding needs
 *    a Cloudflare login.
 * 3. Otherwise the demo model — scripted, not an LLM — and the reply says so.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { DEMO_LABEL, type DemoStep, type DemoTurn, demoModel } from "@cloudflare/computer/tools";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";

export interface ModelEnv {
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  AI?: Ai;
  /** `off` ignores the AI binding (set by `npm run dev`). */
  WORKERS_AI?: string;
  WORKERS_AI_MODEL?: string;
}

export interface ChosenModel {
  model: LanguageModel;
  /** Shown to the user: which model answers. */
  label: string;
  demo: boolean;
}

export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

export const NO_MODEL_NOTE =
  "No model is configured (set OPENAI_BASE_URL and OPENAI_API_KEY, or deploy with the Workers AI binding AI), " +
  `so the ${DEMO_LABEL} writes the document: a fixed outline around your prompt.`;

export function chooseModel(env: ModelEnv, demoScript: (turn: DemoTurn) => DemoStep[]): ChosenModel {
  if (env.OPENAI_BASE_URL) {
    const id = env.OPENAI_MODEL || DEFAULT_OPENAI_MODEL;
    const provider = createOpenAICompatible({
      name: "openai-compatible",
      baseURL: env.OPENAI_BASE_URL,
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    });
    return { model: provider.chatModel(id), label: `${id} at ${env.OPENAI_BASE_URL}`, demo: false };
  }
  if (env.AI && env.WORKERS_AI !== "off") {
    const id = env.WORKERS_AI_MODEL || DEFAULT_WORKERS_AI_MODEL;
    return { model: createWorkersAI({ binding: env.AI })(id), label: `Workers AI ${id}`, demo: false };
  }
  return { model: demoModel(demoScript), label: DEMO_LABEL, demo: true };
}

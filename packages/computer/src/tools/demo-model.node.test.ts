import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type DemoTurn, demoModel } from "./demo-model.js";

// A script that calls one tool, then says what it returned.
const script = (turn: DemoTurn) => [
  { say: "Looking. ", calls: [{ tool: "echo", input: { text: turn.text } }] },
  { say: `Turn ${turn.turn} got ${JSON.stringify(turn.results)}.` },
];

function tools(seen: string[]) {
  return {
    echo: tool({
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        seen.push(text);
        return text.toUpperCase();
      },
    }),
  };
}

describe("demoModel", () => {
  it("plays its script through the SDK's real tool calls, generating", async () => {
    const seen: string[] = [];
    const result = await generateText({
      model: demoModel(script),
      tools: tools(seen),
      stopWhen: stepCountIs(5),
      prompt: "hi",
    });
    expect(seen).toEqual(["hi"]);
    expect(result.text).toBe('Turn 1 got ["HI"].');
    expect(result.steps).toHaveLength(2);
  });

  it("streams the same script word by word", async () => {
    const seen: string[] = [];
    const result = streamText({ model: demoModel(script), tools: tools(seen), stopWhen: stepCountIs(5), prompt: "yo" });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text);
    expect(seen).toEqual(["yo"]);
    expect(deltas.join("")).toBe('Looking. Turn 1 got ["YO"].');
    expect(deltas.length).toBeGreaterThan(2);
  });

  it("counts turns from the conversation it is shown", async () => {
    const result = await generateText({
      model: demoModel((turn) => [{ say: `turn ${turn.turn}: ${turn.text}` }]),
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: "turn 1: one" },
        { role: "user", content: "two" },
      ],
    });
    expect(result.text).toBe("turn 2: two");
  });
});

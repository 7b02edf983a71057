/**
 * The chat end to end with the demo model: the Worker bundled the way
 * wrangler would and served by Miniflare (a SQLite Durable Object, the Worker
 * Loader for worker-shell), its container-shell a real computerd process with
 * a real FUSE mount under a local container host started here. A real
 * WebSocket client talks to `/agents/assistant/<name>`; the demo model's tool
 * calls change the workspace, which the file route and a second turn show.
 * Needs root and the packages built (dist/).
 */
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../src/protocol.js";
import { useAssistantWorker } from "./assistant.js";
import { openChat } from "./session.js";

const worker = useAssistantWorker();

type ToolResult = Extract<ServerMessage, { type: "tool-result" }>;
const finals = (frames: ServerMessage[]) =>
  frames.filter((f): f is ToolResult => f.type === "tool-result" && f.preliminary !== true);

describe("examples/think", () => {
  it("says it is the demo model when none is configured, and its tools change the workspace", async () => {
    const chat = await openChat(worker.url(), "alice");
    expect(chat.ready).toMatchObject({
      type: "ready",
      demo: true,
      model: "demo model — scripted, not an LLM",
      turns: 0,
    });
    expect(chat.ready.note).toMatch(/No model is configured .*OPENAI_BASE_URL/);

    const frames = await chat.prompt("remember the milk");
    const text = frames.filter((f) => f.type === "text").map((f) => (f as { delta: string }).delta);
    // The text arrives in pieces, before and after the tool calls.
    expect(text.length).toBeGreaterThan(3);
    const calls = frames.filter((f) => f.type === "tool-call");
    expect(calls.map((c) => [c.tool, (c.input as { backend?: string }).backend])).toEqual([
      ["write", undefined],
      ["exec", "worker-shell"],
      ["exec", "container-shell"],
    ]);
    const [write, shell, container] = finals(frames).map((r) => r.output as Record<string, unknown>);
    expect(write).toMatchObject({ path: "/workspace/chat/turn-1.md" });
    expect(shell).toMatchObject({
      backend: "worker-shell",
      exitCode: 0,
      stdout: "turn-1.md\n# Turn 1\n\nremember the milk\n",
    });
    expect(container).toMatchObject({ backend: "container-shell", exitCode: 0, stdout: "Linux\n3\n" });
    const done = frames.at(-1) as Extract<ServerMessage, { type: "done" }>;
    expect(done.type).toBe("done");
    expect(done.text).toContain("container-shell (Linux) counted 3 lines");
    expect(done.text).toContain("This is turn 1");

    // The files the tools wrote are in the workspace: the write tool's, and the container's `tee`.
    const saved = await worker.request("/agents/assistant/alice/file/workspace/chat/turn-1.md");
    expect(await saved.text()).toBe("# Turn 1\n\nremember the milk\n");
    expect(await (await worker.request("/agents/assistant/alice/file/workspace/chat/lines.txt")).text()).toBe("3\n");
    expect((await worker.request("/agents/assistant/bob/file/workspace/chat/turn-1.md")).status).toBe(404);

    // A second turn sees the first one's file and knows it is the second turn.
    const second = await chat.prompt("and the eggs");
    const [, shell2, container2] = finals(second).map((r) => r.output as Record<string, unknown>);
    expect(shell2).toMatchObject({ stdout: "lines.txt\nturn-1.md\nturn-2.md\n# Turn 2\n\nand the eggs\n" });
    expect(container2).toMatchObject({ stdout: "Linux\n6\n" });
    expect((second.at(-1) as { text: string }).text).toContain("worker-shell listed 2 saved message(s)");
    chat.close();
  });

  it("keeps the conversation in the Durable Object across connections", async () => {
    const first = await openChat(worker.url(), "carol");
    await first.prompt("one");
    first.close();
    const again = await openChat(worker.url(), "carol");
    expect(again.ready.turns).toBe(1);
    const frames = await again.prompt("two");
    expect((frames.at(-1) as { text: string }).text).toContain("This is turn 2");
    again.close();
    const messages = (await (await worker.request("/agents/assistant/carol/messages")).json()) as {
      role: string;
      content: unknown;
    }[];
    expect(messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["one", "two"]);
    // Each turn: the user message, then assistant and tool messages for the four steps.
    expect(messages.map((m) => m.role)).toContain("tool");
  });

  it("answers a frame that is not a prompt with an error, and unknown routes with 404", async () => {
    const chat = await openChat(worker.url(), "erin");
    expect(await chat.send("not json")).toEqual([{ type: "error", message: "messages are JSON" }]);
    expect(await chat.send(JSON.stringify({ type: "prompt", text: " " }))).toEqual([
      { type: "error", message: 'send {"type":"prompt","text":"…"}' },
    ]);
    chat.close();
    expect((await worker.request("/agents/assistant/erin/nothing-here")).status).toBe(404);
    expect((await worker.request("/agents/assistant/erin/file/workspace/missing.txt")).status).toBe(404);
    expect((await worker.request("/elsewhere")).status).toBe(404);
  });
});

/**
 * The OpenAI-compatible path: with OPENAI_BASE_URL set, the assistant's turns
 * go through `@ai-sdk/openai-compatible` over real HTTP to a tiny fake
 * chat-completions server on 127.0.0.1 that streams (SSE) a tool call, then
 * an answer. The tool call runs against the real workspace.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";
import { openChat } from "./session.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

interface ChatRequest {
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content?: unknown; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string } }[];
  };
}

const requests: ChatRequest[] = [];
let server: Server;
let base = "";

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: "chat-1", object: "chat.completion.chunk", created: 1, model: "fake-model" };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** First request: a little text and a `write` call; once a tool result is in the messages: the answer. */
function reply(request: ChatRequest): string[] {
  if (!request.body.messages.some((message) => message.role === "tool")) {
    const args = JSON.stringify({ path: "/workspace/from-llm.txt", content: "written through the OpenAI path\n" });
    return [
      chunk({ role: "assistant", content: "Writing " }),
      chunk({ content: "it now." }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
      chunk({}, "tool_calls"),
    ];
  }
  return [chunk({ role: "assistant", content: "Saved " }), chunk({ content: "from-llm.txt." }), chunk({}, "stop")];
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let raw = "";
    for await (const part of req) raw += part;
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    const request: ChatRequest = { headers: req.headers, body: JSON.parse(raw) };
    requests.push(request);
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const event of reply(request)) res.write(event);
    res.end("data: [DONE]\n\n");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(async () => {
  server?.close();
});

const worker = useExampleWorker(example, () => ({
  durableObjects: { Assistant: { className: "Assistant", useSQLite: true } },
  workerLoaders: { LOADER: {} },
  bindings: { OPENAI_BASE_URL: base, OPENAI_API_KEY: "test-key", OPENAI_MODEL: "fake-model" },
}));

describe("examples/think with an OpenAI-compatible endpoint", () => {
  it("streams the model's text and tool call over HTTP and runs the tool on the workspace", async () => {
    const chat = await openChat(worker.url(), "olga");
    expect(chat.ready).toMatchObject({ demo: false, model: `fake-model at ${base}` });
    expect(chat.ready.note).toBeUndefined();
    const frames = await chat.prompt("please save a file");
    chat.close();
    expect(frames.filter((f) => f.type === "text").map((f) => (f as { delta: string }).delta)).toEqual([
      "Writing ",
      "it now.",
      "Saved ",
      "from-llm.txt.",
    ]);
    expect(frames).toContainEqual({
      type: "tool-call",
      id: "call_1",
      tool: "write",
      input: { path: "/workspace/from-llm.txt", content: "written through the OpenAI path\n" },
    });
    expect(frames.at(-1)).toEqual({ type: "done", text: "Writing it now.Saved from-llm.txt." });
    const file = await worker.request("/agents/assistant/olga/file/workspace/from-llm.txt");
    expect(await file.text()).toBe("written through the OpenAI path\n");

    // What reached the endpoint: two streamed requests, the key, the model, the tools, the tool's result.
    expect(requests).toHaveLength(2);
    const [first, second] = requests as [ChatRequest, ChatRequest];
    expect(first.headers.authorization).toBe("Bearer test-key");
    expect(first.body).toMatchObject({ model: "fake-model", stream: true });
    expect(first.body.messages[0]).toMatchObject({ role: "system" });
    expect(first.body.messages.at(-1)).toEqual({ role: "user", content: "please save a file" });
    expect(first.body.tools?.map((t) => t.function.name).sort()).toEqual(
      ["delete", "edit", "exec", "find", "grep", "ls", "read", "write"].sort(),
    );
    const toolMessage = second.body.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({ tool_call_id: "call_1" });
    expect(String(toolMessage?.content)).toContain("from-llm.txt");
  });
});

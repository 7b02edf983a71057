/**
 * The console's HTTP and SSE routes against real parts: the Worker bundled
 * the way wrangler would (esbuild) and served by Miniflare with a SQLite
 * Durable Object and the Worker Loader; `container-shell` runs in a real
 * computerd with a real FUSE mount under a local container host started
 * here. The chat runs the scripted demo model over the real tools, and once
 * against a local stand-in for an OpenAI-compatible endpoint (the only fake:
 * no real model is reachable from a test). Needs root and the packages built.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExampleWorker, startExampleWorker, useExampleWorker } from "../../test-support/worker.js";
import { allEvents, sseEvents } from "./sse.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  // Stops every computerd it started, which unmounts their /workspace.
  await host?.close();
});

// Registered after the host's hooks: the Worker starts after the host and stops before it.
const { request } = useExampleWorker(example, () => ({
  bindings: { COMPUTER_CONTAINER_HOST: host.url },
  workerLoaders: { LOADER: {} },
}));

const post = (path: string, body: unknown): Promise<Response> =>
  request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const exec = (name: string, backend: string, command: string) => post(`/api/w/${name}/exec`, { backend, command });

describe("examples/console files", () => {
  it("writes, reads, lists and deletes files under /workspace", async () => {
    expect((await request("/api/w/files/file/workspace/notes/a.txt", { method: "PUT", body: "alpha" })).status).toBe(
      204,
    );
    expect(await (await request("/api/w/files/file/workspace/notes/a.txt")).text()).toBe("alpha");
    expect(await (await request("/api/w/files/tree")).json()).toEqual({
      root: "/workspace",
      entries: [
        { path: "/workspace/notes", type: "dir" },
        { path: "/workspace/notes/a.txt", type: "file" },
      ],
      truncated: false,
    });
    // Another name is another Durable Object, with its own (empty) /workspace.
    expect(await (await request("/api/w/other/tree")).json()).toMatchObject({ entries: [] });
    expect((await request("/api/w/files/file/workspace/notes", { method: "DELETE" })).status).toBe(204);
    expect((await request("/api/w/files/file/workspace/notes/a.txt")).status).toBe(404);
    expect((await request("/api/w/files/file/workspace/notes", { method: "DELETE" })).status).toBe(404);
  });

  it("refuses paths outside /workspace, bad names and unknown routes", async () => {
    expect((await request("/api/w/files/file/etc/passwd")).status).toBe(400);
    expect(
      (await request("/api/w/files/file/workspace/a/%2e%2e/%2e%2e/etc", { method: "PUT", body: "x" })).status,
    ).toBe(400);
    expect((await request("/api/w/files/file/workspace/notes%2F..%2F..%2Fetc")).status).toBe(400);
    expect((await request("/api/w/bad%20name/tree")).status).toBe(400);
    expect((await request("/api/w/files/elsewhere")).status).toBe(404);
    expect((await request("/elsewhere")).status).toBe(404);
    await request("/api/w/files/file/workspace/d/x.txt", { method: "PUT", body: "x" });
    expect((await request("/api/w/files/file/workspace/d")).status).toBe(400);
    expect((await request("/api/w/files/file/workspace/d", { method: "POST" })).status).toBe(405);
  });
});

describe("examples/console terminals", () => {
  it("streams `cat` on each backend: start, stdout, exit, then the sync counters", async () => {
    await request("/api/w/term/file/workspace/hello.txt", { method: "PUT", body: "hello, console\n" });
    for (const backend of ["worker-shell", "worker-javascript", "container-shell"]) {
      const response = await exec("term", backend, "cat hello.txt");
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = await allEvents(response);
      expect(
        events.map((event) => event.event),
        backend,
      ).toEqual(["start", "stdout", "exit", "sync"]);
      expect(events[0]?.data).toMatchObject({ backend });
      expect(events[1]?.data).toMatchObject({ text: "hello, console\n" });
      expect(events[2]?.data).toMatchObject({ code: 0, status: "completed" });
      const sync = events[3]?.data;
      expect(sync.sync).toMatchObject({ status: "complete" });
      if (backend === "container-shell") {
        // The bracket pushed the workspace into the container before the command.
        expect(sync.pushed).toBeGreaterThan(0);
      } else {
        // The Worker backends work on the object's own store: nothing to sync.
        expect(sync).toMatchObject({ pushed: 0, pulled: 0 });
      }
    }
  });

  it("brings a container command's writes back (pulled) and shows them in the tree", async () => {
    const events = await allEvents(await exec("term", "container-shell", "uname -s > os.txt && echo made >&2"));
    expect(events.map((event) => event.event)).toEqual(["start", "stderr", "exit", "sync"]);
    expect(events[3]?.data.pulled).toBeGreaterThan(0);
    expect(await (await request("/api/w/term/file/workspace/os.txt")).text()).toBe("Linux\n");
  });

  it("turns a JS-terminal line into a module: cat and ls over node:fs/promises, an expression's value", async () => {
    await request("/api/w/js/file/workspace/dir/a.txt", { method: "PUT", body: "A" });
    const ls = await allEvents(await exec("js", "worker-javascript", "ls"));
    expect(ls[0]?.data.source).toContain('readdir(".", { withFileTypes: true })');
    expect(ls.find((event) => event.event === "stdout")?.data.text).toBe("dir/\n");
    const sum = await allEvents(await exec("js", "worker-javascript", "[1, 2, 3].reduce((a, b) => a + b)"));
    expect(sum.find((event) => event.event === "exit")?.data).toEqual({ code: 0, status: "completed", value: 6 });
    const missing = await allEvents(await exec("js", "worker-javascript", "cat nope.txt"));
    expect(missing.find((event) => event.event === "stderr")?.data.text).toMatch(/ENOENT/);
    expect(missing.find((event) => event.event === "exit")?.data).toMatchObject({ code: 1, status: "failed" });
  });

  // Output arrives while the command still runs: the command below never ends on its own, so the
  // first stdout event can only have come live; then /kill stops it.
  for (const [backend, command, code] of [
    ["container-shell", "echo ready; sleep 600", 143],
    ["worker-javascript", 'export default async () => { console.log("ready"); await new Promise(() => {}); }', 130],
  ] as const) {
    it(`streams ${backend} output live and stops it with /kill`, async () => {
      const seen: string[] = [];
      let id = "";
      for await (const { event, data } of sseEvents(await exec("live", backend, command))) {
        seen.push(event);
        if (event === "start") id = data.id;
        if (event === "stdout") {
          expect(data.text).toBe("ready\n");
          const kill = await post("/api/w/live/kill", { backend, id });
          expect(kill.status).toBe(204);
        }
        if (event === "exit") expect(data).toMatchObject({ code, status: "cancelled" });
      }
      expect(seen).toEqual(["start", "stdout", ...(backend === "worker-javascript" ? ["stderr"] : []), "exit", "sync"]);
    });
  }

  it("answers 400 to bad exec and kill bodies, and 404 to a cwd that is not there", async () => {
    expect((await post("/api/w/bad/exec", { backend: "nope", command: "true" })).status).toBe(400);
    expect((await post("/api/w/bad/exec", { backend: "worker-shell", command: " " })).status).toBe(400);
    expect((await post("/api/w/bad/exec", { backend: "worker-shell", command: "true", cwd: 1 })).status).toBe(400);
    expect((await post("/api/w/bad/exec", ["not", "an", "object"])).status).toBe(400);
    expect((await request("/api/w/bad/exec", { method: "POST", body: "{" })).status).toBe(400);
    expect((await post("/api/w/bad/kill", { backend: "worker-shell" })).status).toBe(400);
    // A relative cwd starts at /workspace (examples/console/README.md); this one is not there.
    const relative = await post("/api/w/bad/exec", { backend: "worker-shell", command: "pwd", cwd: "x" });
    expect(relative.status).toBe(404);
    expect(await relative.json()).toEqual({
      error: "ENOENT: no such file or directory, chdir '/workspace/x'",
      code: "ENOENT",
    });
  });
});

describe("examples/console chat", () => {
  it("says no model is configured and runs the demo model's tool calls on the real workspace", async () => {
    expect(await (await request("/api/model")).json()).toMatchObject({ kind: "demo" });
    await request("/api/w/chat/file/workspace/todo.md", { method: "PUT", body: "- ship the console\n" });
    const events = await allEvents(
      await post("/api/w/chat/chat", { messages: [{ role: "user", content: "What is in todo.md?" }] }),
    );
    expect(events.map((event) => event.event)).toEqual(["model", "tool-call", "tool-result", "text", "done"]);
    expect(events[0]?.data).toMatchObject({ kind: "demo", reason: expect.stringContaining("OPENAI_MODEL") });
    expect(events[1]?.data).toMatchObject({ name: "read", input: { path: "todo.md" } });
    expect(events[2]?.data).toMatchObject({
      name: "read",
      // The read tool pages by line: the content is the lines, without the final newline.
      output: { path: "/workspace/todo.md", content: "- ship the console", totalLines: 1 },
    });
    expect(events[3]?.data.text).toMatch(/^\[demo model\] .*\n- read todo\.md: - ship the console$/s);
    expect(events[4]?.data).toEqual({ finishReason: "stop", steps: 2 });
  });

  it("runs a command through the exec tool and lists the workspace otherwise", async () => {
    const run = await allEvents(
      await post("/api/w/chat/chat", {
        messages: [
          { role: "user", content: "hello" },
          { role: "assistant", content: "hi" },
          { role: "user", content: "run echo from-the-agent > agent.txt && cat agent.txt" },
        ],
      }),
    );
    expect(run.find((event) => event.event === "tool-result")?.data.output).toMatchObject({
      backend: "worker-shell",
      exitCode: 0,
      stdout: "from-the-agent\n",
    });
    expect(await (await request("/api/w/chat/file/workspace/agent.txt")).text()).toBe("from-the-agent\n");
    const ls = await allEvents(
      await post("/api/w/chat/chat", { messages: [{ role: "user", content: "look around" }] }),
    );
    expect(ls.find((event) => event.event === "tool-call")?.data).toMatchObject({ name: "ls" });
    expect(ls.find((event) => event.event === "text")?.data.text).toContain("agent.txt");
  });

  it("refuses malformed conversations", async () => {
    for (const body of [
      {},
      { messages: [] },
      { messages: [{ role: "system", content: "x" }] },
      { messages: [{ role: "user", content: 1 }] },
      {
        messages: [
          { role: "user", content: "a" },
          { role: "assistant", content: "b" },
        ],
      },
    ]) {
      expect((await post("/api/w/chat/chat", body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe("examples/console chat with a configured model", () => {
  // A stand-in for an OpenAI-compatible endpoint: one streamed chat completion per request.
  let endpoint: Server;
  const requests: Array<{ url: string; authorization: string | undefined; body: { model: string } }> = [];
  let worker: ExampleWorker;
  beforeAll(async () => {
    endpoint = createServer(async (req: IncomingMessage, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      requests.push({ url: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(body) });
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(
        `${chunk({ role: "assistant", content: "hello from " }, null)}${chunk({ content: "the endpoint" }, "stop")}data: [DONE]\n\n`,
      );
    });
    endpoint.listen(0, "127.0.0.1");
    await once(endpoint, "listening");
    const { port } = endpoint.address() as AddressInfo;
    worker = await startExampleWorker(example, {
      bindings: {
        COMPUTER_CONTAINER_HOST: host.url,
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        OPENAI_API_KEY: "test-key",
        OPENAI_MODEL: "test-model",
      },
      workerLoaders: { LOADER: {} },
    });
  });
  afterAll(async () => {
    await worker?.dispose();
    endpoint?.close();
  });

  it("uses OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL and streams the model's answer", async () => {
    expect(await (await worker.request("/api/model")).json()).toEqual({
      kind: "openai-compatible",
      model: "test-model",
      baseURL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/),
    });
    const response = await worker.request("/api/w/model/chat", {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    const events = await allEvents(response);
    expect(events.map((event) => event.event)).toEqual(["model", "text", "text", "done"]);
    expect(events.filter((event) => event.event === "text").map((event) => event.data.text)).toEqual([
      "hello from ",
      "the endpoint",
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: "/v1/chat/completions",
      authorization: "Bearer test-key",
      body: { model: "test-model" },
    });
  });
});

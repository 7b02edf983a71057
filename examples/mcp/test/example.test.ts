/**
 * The MCP server through the official SDK client: `@modelcontextprotocol/sdk`'s
 * `Client` over `StreamableHTTPClientTransport`, from Node, against the
 * Worker bundled the way wrangler would and served by Miniflare (SQLite
 * Durable Object, Worker Loader), with a local container host for the
 * container-shell. The transport's requests go to Miniflare's `dispatchFetch`
 * (its `fetch` option), so no port is opened; `test/dev.test.ts` does the
 * same over a real socket. Needs root (FUSE, namespaces) and the packages built.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";
import type { CodeResult } from "../src/index.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "test-token-0123456789";
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  // Stops every computerd it started, which unmounts their /workspace.
  await host?.close();
});

const { request } = useExampleWorker(example, () => ({
  workerLoaders: { LOADER: {} },
  bindings: { MCP_TOKEN: TOKEN, COMPUTER_CONTAINER_HOST: host.url },
}));

/** An SDK client whose HTTP goes to the Worker under Miniflare. */
async function connect(token = TOKEN): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://example.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (url, init) => {
      const target = new URL(url);
      return request(`${target.pathname}${target.search}`, init);
    },
  });
  const client = new Client({ name: "examples-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** Calls `code` and returns its structured result, with the MCP-level error flag. */
async function runCode(client: Client, code: string): Promise<CodeResult & { isError: boolean }> {
  const reply = await client.callTool({ name: "code", arguments: { code } });
  const text = (reply.content as { type: string; text: string }[])[0]?.text ?? "";
  // The text block is the structured content, serialized, for clients that read only text.
  expect(JSON.parse(text)).toEqual(reply.structuredContent);
  return { ...(reply.structuredContent as unknown as CodeResult), isError: reply.isError === true };
}

describe("examples/mcp over the SDK client", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists one tool, code, that describes every workspace tool it can call", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["code"]);
    const [code] = tools;
    expect(code?.inputSchema).toMatchObject({ type: "object", properties: { code: { type: "string" } } });
    expect(code?.inputSchema.required).toEqual(["code"]);
    expect(code?.outputSchema?.properties).toHaveProperty("stdout");
    for (const name of ["read", "ls", "find", "grep", "write", "edit", "delete", "exec"]) {
      expect(code?.description).toContain(`### tools.${name}(input)`);
    }
    // Assets are off, and exec offers both shells, worker-shell by default.
    expect(code?.description).not.toContain("tools.publish");
    expect(code?.description).toContain("- worker-shell (default)");
    expect(code?.description).toContain("- container-shell");
    expect(client.getServerVersion()).toEqual({ name: "computer-mcp", version: "0.1.0" });
  });

  it("runs code that writes a file, runs a shell command on it and reads the command's output back", async () => {
    const outcome = await runCode(
      client,
      `async () => {
        const written = await tools.write({ path: "notes/hello.txt", content: "hello from code mode\\n" });
        const shell = await tools.exec({ command: "tr a-z A-Z < notes/hello.txt > notes/upper.txt && wc -c < notes/upper.txt" });
        const read = await tools.read({ path: "notes/upper.txt" });
        console.log("done");
        return { written, exitCode: shell.exitCode, bytes: shell.stdout.trim(), backend: shell.backend, content: read.content };
      }`,
    );
    expect(outcome).toEqual({
      status: "completed",
      isError: false,
      result: {
        written: { path: "/workspace/notes/hello.txt", bytesWritten: 21 },
        exitCode: 0,
        bytes: "21",
        backend: "worker-shell",
        // read gives the lines; the file's last newline is not a line of its own.
        content: "HELLO FROM CODE MODE",
      },
      stdout: "done\n",
      stderr: "",
    });
    // The files stay: the next call (a fresh Worker) sees them, here through ls and grep as a function body.
    const later = await runCode(
      client,
      `const listing = await tools.ls({ path: "notes" });
       const found = await tools.grep({ query: "CODE", path: "/workspace/notes" });
       return { names: listing.entries.map((entry) => entry.name), matches: found.matches.map((m) => m.path) };`,
    );
    expect(later.result).toEqual({ names: ["hello.txt", "upper.txt"], matches: ["/workspace/notes/upper.txt"] });
  });

  it("has git in the shell, and edit and delete as functions", async () => {
    const outcome = await runCode(
      client,
      `async () => {
        await tools.write({ path: "repo/a.txt", content: "one\\n" });
        const commit = await tools.exec({
          command: "git init -q && git add a.txt && git commit -q -m first --author 'A <a@example.com>' && git log --oneline",
          cwd: "/workspace/repo",
        });
        const edit = await tools.edit({ path: "repo/a.txt", edits: [{ oldText: "one", newText: "two" }] });
        const status = await tools.exec({ command: "git status --porcelain", cwd: "/workspace/repo" });
        const deleted = await tools.delete({ path: "repo/a.txt" });
        const gone = await tools.read({ path: "repo/a.txt" });
        return { log: commit.stdout, edited: edit.editsApplied, status: status.stdout, deleted, gone };
      }`,
    );
    expect(outcome.status).toBe("completed");
    const result = outcome.result as Record<string, unknown>;
    expect(result.log).toMatch(/^[0-9a-f]{7} first\n$/);
    expect(result.edited).toBe(1);
    expect(result.status).toBe(" M a.txt\n");
    expect(result.deleted).toEqual({ deleted: "/workspace/repo/a.txt" });
    expect(result.gone).toEqual({ error: "No such file: /workspace/repo/a.txt" });
  });

  it("runs shell commands in the container when exec asks for container-shell", async () => {
    const outcome = await runCode(
      client,
      `async () => {
        await tools.write({ path: "box/in.txt", content: "from the durable object\\n" });
        const run = await tools.exec({ command: "uname -s && cat in.txt && echo made-in-linux > out.txt", cwd: "/workspace/box", backend: "container-shell" });
        return { run, back: (await tools.read({ path: "box/out.txt" })).content };
      }`,
    );
    expect(outcome.result).toMatchObject({
      run: { backend: "container-shell", exitCode: 0, stdout: "Linux\nfrom the durable object\n" },
      back: "made-in-linux",
    });
  });

  it("reports code that throws, does not parse, or calls a tool wrongly as an error result", async () => {
    const thrown = await runCode(client, `throw new Error("boom from code");`);
    expect(thrown).toMatchObject({ status: "failed", isError: true, result: null });
    expect(thrown.stderr).toContain("boom from code");

    const unparsable = await runCode(client, "async () => { return (; }");
    expect(unparsable).toMatchObject({ status: "failed", isError: true });
    expect(unparsable.stderr).not.toBe("");

    // exec offers only the two shells: the code's own backend is not one of them.
    const wrongBackend = await runCode(client, `await tools.exec({ command: "1", backend: "worker-javascript" });`);
    expect(wrongBackend).toMatchObject({ status: "failed", isError: true });
    expect(wrongBackend.stderr).toContain("tools.exec");
    expect(wrongBackend.stderr).toContain("backend");

    const missingPath = await runCode(client, "return await tools.read({});");
    expect(missingPath.stderr).toContain("tools.read");

    // A tool's own failure is a value, as it is for a model.
    const failedCommand = await runCode(client, `return await tools.exec({ command: "cat nope.txt" });`);
    expect(failedCommand).toMatchObject({ status: "completed", isError: false, result: { exitCode: 1 } });
  });
});

describe("examples/mcp HTTP routes and auth", () => {
  const post = (headers: Record<string, string> = {}) =>
    request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });

  it("serves /health and / without auth", async () => {
    const health = await request("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const info = await request("/");
    expect(await info.json()).toMatchObject({
      name: "computer-mcp",
      mcp: { path: "/mcp", transport: "streamable-http" },
      configured: true,
      tools: ["code"],
      shells: ["worker-shell", "container-shell"],
    });
    expect((await request("/elsewhere")).status).toBe(404);
  });

  it("answers a plain JSON-RPC POST with the token, no session needed (the README's curl)", async () => {
    const response = await request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "code", arguments: { code: "return 6 * 7;" } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: { structuredContent: { status: "completed", result: 42 }, isError: false },
    });
  });

  it("answers 401 without a token or with a wrong one, and 405 to methods other than POST", async () => {
    const none = await post();
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await post({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post({ authorization: "Bearer " })).status).toBe(401);
    expect((await post({ authorization: TOKEN })).status).toBe(401);
    for (const method of ["GET", "DELETE", "PUT"]) {
      const response = await request("/mcp", { method, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    // The SDK client gives up on a 401 at connect.
    await expect(connect("wrong")).rejects.toMatchObject({ code: 401 });
  });
});

describe("examples/mcp without MCP_TOKEN", () => {
  const unset = useExampleWorker(example, { workerLoaders: { LOADER: {} } });

  it("answers 503 on /mcp, and still serves /health and /", async () => {
    const response = await unset.request("/mcp", {
      method: "POST",
      headers: { authorization: "Bearer anything", "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: "MCP_TOKEN is not set: this server accepts no clients until it is",
    });
    expect((await unset.request("/health")).status).toBe(200);
    expect(await (await unset.request("/")).json()).toMatchObject({ configured: false });
  });
});

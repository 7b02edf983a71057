/**
 * `npm run dev` as a user runs it, with `MCP_TOKEN` in its environment: the
 * SDK client connects to `wrangler dev` over a real socket, calls `code`
 * (a file written, a shell command on it, the result read back), and SIGTERM
 * stops wrangler, workerd and the local container host.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "dev-token-for-the-test";
let dev: DevRun | undefined;
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
  await dev?.stop();
  delete process.env.MCP_TOKEN;
});

describe("examples/mcp npm run dev", () => {
  it("serves MCP to the SDK client on $PORT and cleans everything up on SIGTERM", async () => {
    // startDev hands the script this process's environment, as a shell would.
    process.env.MCP_TOKEN = TOKEN;
    dev = await startDev(example);
    expect(await (await fetch(`${dev.base}/health`)).json()).toEqual({ ok: true });
    expect((await fetch(`${dev.base}/mcp`, { method: "POST" })).status).toBe(401);

    client = new Client({ name: "examples-mcp-dev-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${dev.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["code"]);
    const reply = await client.callTool({
      name: "code",
      arguments: {
        code: `await tools.write({ path: "dev.txt", content: "served by wrangler dev" });
               return (await tools.exec({ command: "cat dev.txt | wc -w" })).stdout;`,
      },
    });
    expect(reply.structuredContent).toEqual({ status: "completed", result: "4\n", stdout: "", stderr: "" });
    await client.close();
    client = undefined;

    // wrangler and the workerd it runs hang off the dev script (the host lives in the script itself).
    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(1);
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
    expect(dev.output()).toMatch(/computerd host listening url=http:\/\/127\.0\.0\.1:\d+/);
  });
});

/**
 * The MCP example: a Computer as a Model Context Protocol server with one
 * Code Mode tool, `code`. Instead of one MCP tool per workspace operation, the
 * model writes a little JavaScript that calls the workspace tools
 * (`createAITools` from `@cloudflare/computer/tools`: read, ls, find, grep,
 * write, edit, delete, exec) as async functions, and gets back what it returns
 * plus its console output. Several steps, one round trip.
 *
 *   GET  /health   → {ok: true}                                   (no auth)
 *   GET  /         → what this server is                           (no auth)
 *   POST /mcp      MCP Streamable HTTP, `Authorization: Bearer <MCP_TOKEN>`
 *                  (503 while MCP_TOKEN is unset, 401 on a bad token, 405 for other methods)
 *
 * How `code` runs (docs/mcp.md): the code becomes an ES module on the
 * Workspace's worker-javascript backend — a fresh Dynamic Worker per call,
 * no network — and every `tools.<name>(input)` in it is a host call back into
 * this Durable Object (a `ws:tools` trusted module), where the real tool runs
 * against the Workspace. The tools' `exec` runs commands on `worker-shell`
 * (default) or `container-shell`; git is configured, so `git` works in both
 * shells and through `exec`.
 */
import { DurableObject } from "cloudflare:workers";
import { sqlSyncRetryScheduler, withWorkspace, workspaceOf } from "@cloudflare/computer";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";
import { type TrustedCallContext, WorkerJavaScriptBackend } from "@cloudflare/computer/backends/worker-javascript";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { createGitClient } from "@cloudflare/computer/git";
import curl from "@cloudflare/computer/shell/curl";
import jq from "@cloudflare/computer/shell/jq";
import { type AITools, createAITools } from "@cloudflare/computer/tools";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";

// The shell's Dynamic Worker reaches this Worker's Durable Object through this one (env.HOST there).
export { WorkspaceServiceProxy } from "@cloudflare/computer";
// Cloudflare's container reaches its Durable Object through this entry point (outbound interception).
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
  /** The bearer token MCP clients must send; a secret (`wrangler secret put MCP_TOKEN`). Unset: /mcp answers 503. */
  MCP_TOKEN?: string;
  /** Set in dev only (scripts/dev.mjs passes it with --var): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

const SERVER_INFO = { name: "computer-mcp", version: "0.1.0" };
/** The Durable Object (and so the Workspace) every MCP session works on. */
const WORKSPACE_NAME = "default";
/** The workspace tools the code can call, in the order the description lists them. */
const TOOL_NAMES = ["read", "ls", "find", "grep", "write", "edit", "delete", "exec"] as const;
const SHELLS = {
  "worker-shell": {
    description:
      "just-bash in a Dynamic Worker, directly on the files: coreutils-like commands, git, jq, curl (no network)",
  },
  "container-shell": {
    description: "Linux in a container with /workspace mounted: real bash, git, node and whatever the image has",
  },
};

export interface CodeResult {
  status: "completed" | "failed" | "cancelled";
  /** What the code returned (JSON); null when it returned nothing or failed. */
  result: unknown;
  stdout: string;
  stderr: string;
}

export class Computer extends withWorkspace(
  // The container mixin goes inside, so `self` below has getWorkspaceContainer().
  withWorkspaceContainer(DurableObject<Env>, { binding: "COMPUTER" }),
  (self) => ({
    storage: self.ctx.storage,
    git: createGitClient(),
    // The first backend is the runtime's default: a command without `backend` runs in the worker-shell.
    backends: [
      new WorkerShellBackend({
        loader: self.env.LOADER,
        // The binding and id the WorkspaceServiceProxy above resolves back to this object.
        workspace: { binding: "COMPUTER", id: self.ctx.id.toString() },
        // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
        ctx: self.ctx as unknown as ShellHostContext,
        commands: [curl, jq],
      }),
      new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() }),
      // Where `code` runs. `ws:tools` is the way back to the tools, which live here in the Durable Object.
      new WorkerJavaScriptBackend({
        loader: self.env.LOADER,
        // Typed by hand: a function named `call` could also be the original's `{ "ws:x": { call } }` form.
        trustedModules: {
          tools: { call: (input: unknown, { signal }: TrustedCallContext) => callTool(self, input, signal) },
        },
      }),
    ],
    // A pull that fails after a container command keeps an intent in SQLite and points the alarm at its retry.
    retryScheduler: sqlSyncRetryScheduler(self.ctx.storage, {
      onChange: (at) => (at === undefined ? self.ctx.storage.deleteAlarm() : self.ctx.storage.setAlarm(at)),
    }),
  }),
) {
  /** Retries a pending pull (see retryScheduler above). */
  override async alarm(): Promise<void> {
    await workspaceOf(this).retryPendingSync();
  }

  /** One MCP request (already authorized by the Worker): a stateless server and transport per request. */
  override async fetch(request: Request): Promise<Response> {
    const server = new McpServer(SERVER_INFO, {
      // The SDK's default validator, Ajv, compiles schemas with `new Function`, which workerd refuses. This
      // server never validates a schema itself (no elicitation), but a later feature would then fail only here.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    server.registerTool(
      "code",
      {
        title: "Run code in the Computer",
        description: codeToolDescription(toolsOf(this)),
        inputSchema: { code: z.string().min(1).describe("An async arrow function, or the body of one.") },
        outputSchema: {
          status: z.enum(["completed", "failed", "cancelled"]),
          result: z.unknown(),
          stdout: z.string(),
          stderr: z.string(),
        },
      },
      async ({ code }) => {
        const outcome = await this.runCode(code);
        return {
          content: [{ type: "text", text: JSON.stringify(outcome) }],
          structuredContent: { ...outcome },
          isError: outcome.status !== "completed",
        };
      },
    );
    // No session id: every POST stands alone (the DO keeps the state that matters, the files).
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }

  /** Runs the code of one `code` call on the worker-javascript backend. */
  async runCode(code: string): Promise<CodeResult> {
    const workspace = workspaceOf(this);
    await workspace.fs.mkdir("/workspace", { recursive: true });
    try {
      const handle = await workspace.runtime.exec(codeModule(code), {
        backend: "worker-javascript",
        encoding: "utf8",
      });
      const result = await handle.result();
      return {
        status: result.status,
        result: result.value ?? null,
        stdout: text(result.stdout),
        stderr: text(result.stderr),
      };
    } catch (error) {
      // A syntax error or a refused import (EMODULE) fails before any Worker exists.
      return {
        status: "failed",
        result: null,
        stdout: "",
        stderr: error instanceof Error ? error.message : String(error),
      };
    }
  }
}

/** The tool set of one Durable Object, built on first use (the Workspace exists only after the constructor). */
const toolSets = new WeakMap<object, AITools>();

function toolsOf(self: object): AITools {
  let tools = toolSets.get(self);
  if (!tools) {
    tools = createAITools({
      workspace: workspaceOf(self),
      // The example has no assets client; say so anyway, so adding one later does not grow the tool set.
      assets: false,
      shell: { backends: SHELLS, defaultBackend: "worker-shell" },
    });
    toolSets.set(self, tools);
  }
  return tools;
}

/**
 * `ws:tools`'s one function: `{tool, input}` → what the tool returns. The
 * input is checked against the tool's schema first, as the AI SDK would; a
 * tool's own failures come back as `{error}`, as they do for a model.
 */
async function callTool(self: object, request: unknown, signal: AbortSignal): Promise<unknown> {
  const { tool: name, input } = (request ?? {}) as { tool?: unknown; input?: unknown };
  const tools = toolsOf(self);
  const tool = typeof name === "string" && Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (!tool?.execute)
    throw new TypeError(`there is no tool ${JSON.stringify(name)}; tools: ${Object.keys(tools).join(", ")}`);
  const schema = tool.inputSchema as unknown as z.ZodType;
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw new TypeError(`tools.${name}: ${z.prettifyError(parsed.error)}`);
  const output = tool.execute(parsed.data, { toolCallId: crypto.randomUUID(), messages: [], abortSignal: signal });
  // `exec` streams snapshots (an async generator); the last one is its result.
  if (output !== null && typeof output === "object" && Symbol.asyncIterator in output) {
    let last: unknown;
    for await (const snapshot of output as AsyncIterable<unknown>) last = snapshot;
    return last;
  }
  return await output;
}

/** What the model reads: how to write the code, then each function with its own description and input schema. */
function codeToolDescription(tools: AITools): string {
  const functions = TOOL_NAMES.filter((name) => tools[name] !== undefined).map((name) => {
    const tool = tools[name] as AITools[string];
    const { $schema: _, ...schema } = z.toJSONSchema(tool.inputSchema as unknown as z.ZodType) as Record<
      string,
      unknown
    >;
    return `### tools.${name}(input)\n${tool.description ?? ""}\ninput: ${JSON.stringify(schema)}`;
  });
  return [
    "Run JavaScript against this Computer's workspace (files under /workspace persist between calls).",
    "`code` is an async arrow function (`async () => { ... }`) or the body of one. In it, `tools` holds the",
    "workspace tools as async functions: each takes one object and resolves to the tool's result; a tool that",
    "fails resolves to `{ error }`, bad input throws. `return` a JSON value to get it back; console.log output",
    "comes back as stdout. The code runs in a fresh sandbox with no network. Example:",
    "async () => { await tools.write({ path: 'a.txt', content: 'hi' }); return (await tools.exec({ command: 'cat a.txt' })).stdout; }",
    "",
    ...functions,
  ].join("\n");
}

/**
 * The module the worker-javascript backend runs for one `code` call. The
 * code is either a function expression (it starts with `async`, `function`
 * or `() =>`) or a function body; both see `tools`.
 */
export function codeModule(code: string): string {
  const trimmed = code.trim();
  const functions = TOOL_NAMES.map(
    (name) => `  ${JSON.stringify(name)}: (input) => call({ tool: ${JSON.stringify(name)}, input }),`,
  );
  const isFunction = /^(async\b|function\b|\(\s*\)\s*=>)/.test(trimmed);
  const main = isFunction
    ? `const main = (\n${trimmed.replace(/;\s*$/, "")}\n);`
    : `const main = async () => {\n${code}\n};`;
  return [
    'import { call } from "ws:tools";',
    `const tools = Object.freeze({\n${functions.join("\n")}\n});`,
    main,
    "export default async () => {",
    '  const value = await (typeof main === "function" ? main() : main);',
    "  return value === undefined ? null : value;",
    "};",
  ].join("\n");
}

/** Output asked for as utf8 is a string; the result type also allows bytes. */
function text(output: string | Uint8Array): string {
  return typeof output === "string" ? output : new TextDecoder().decode(output);
}

/** Compares the bearer token without leaking, by timing, how much of it matched. */
async function sameToken(given: string, expected: string): Promise<boolean> {
  const digest = async (value: string) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(value, { status, headers });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return json({ ok: true });
    if (url.pathname === "/") {
      return json({
        ...SERVER_INFO,
        mcp: { path: "/mcp", transport: "streamable-http", auth: "Authorization: Bearer <MCP_TOKEN>" },
        configured: Boolean(env.MCP_TOKEN),
        tools: ["code"],
        shells: Object.keys(SHELLS),
      });
    }
    if (url.pathname !== "/mcp") return new Response("mcp example: GET /health, GET /, POST /mcp\n", { status: 404 });
    if (!env.MCP_TOKEN) {
      return json({ error: "MCP_TOKEN is not set: this server accepts no clients until it is" }, 503);
    }
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !(await sameToken(match[1] as string, env.MCP_TOKEN))) {
      return json({ error: "a valid Authorization: Bearer <MCP_TOKEN> header is required" }, 401, {
        "www-authenticate": 'Bearer realm="mcp"',
      });
    }
    // Stateless Streamable HTTP: no SSE stream to GET, no session to DELETE.
    if (request.method !== "POST") return json({ error: "POST only" }, 405, { allow: "POST" });
    return env.COMPUTER.get(env.COMPUTER.idFromName(WORKSPACE_NAME)).fetch(request);
  },
} satisfies ExportedHandler<Env>;

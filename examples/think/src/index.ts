/**
 * The think example: a chat agent whose working directory is a Workspace.
 *
 *   WebSocket /agents/assistant/<name>                 the chat (src/protocol.ts); `npm run chat` is a client
 *   GET       /agents/assistant/<name>/messages        the stored conversation (AI SDK ModelMessages)
 *   GET       /agents/assistant/<name>/file/workspace/<path>   a file of that assistant's workspace
 *
 * Each name is its own assistant: its own Durable Object, conversation and
 * files. The model comes from configuration (src/model.ts); with none, a
 * scripted demo model drives the real tools.
 */
import { routeAgentRequest } from "agents";
import type { Env } from "./assistant.js";

// The container reaches its Durable Object through WorkspaceProxy; the worker-shell's Dynamic Worker
// reaches the workspace through WorkspaceServiceProxy (a Durable Object stub cannot go in its env).
export { WorkspaceServiceProxy } from "@cloudflare/computer";
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";
export { Assistant } from "./assistant.js";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    return (
      (await routeAgentRequest(request, env)) ??
      new Response("think example: WebSocket /agents/assistant/<name> (try `npm run chat`)\n", { status: 404 })
    );
  },
} satisfies ExportedHandler<Env>;

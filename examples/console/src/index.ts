/**
 * The console: a web page over one workspace — a file tree and editor, a
 * terminal per backend (worker-shell, worker-javascript, container-shell)
 * with output streamed as it arrives, and a chat agent with the workspace's
 * AI tools. The page is static (public/, served as Workers static assets);
 * everything it calls is here:
 *
 *   GET  /api/model                  → which chat model runs (an endpoint from env, or the demo)
 *   *    /api/w/<name>/<route>       → the Durable Object of workspace <name> (routes in computer.ts)
 *
 * Which container runs `container-shell` is configuration: with
 * `COMPUTER_CONTAINER_HOST` set (`npm run dev`) the local container host;
 * deployed, the Cloudflare container from wrangler.jsonc's `containers`.
 */
import { chooseModel } from "./agent.js";
import type { Env } from "./computer.js";
import { errorResponse, json } from "./http.js";

export { WorkspaceServiceProxy } from "@cloudflare/computer";
// The worker-shell's Dynamic Worker reaches the object through WorkspaceServiceProxy; Cloudflare's
// container reaches it through WorkspaceProxy (outbound interception).
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";
export { Computer } from "./computer.js";

/** Workspace names as they appear in URLs: short, and safe in a path segment. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/api/model") return json(chooseModel(env));
    const match = /^\/api\/w\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!match) return json({ error: "not found: the API is GET /api/model and /api/w/<name>/…", code: "ENOENT" }, 404);
    const name = match[1] as string;
    if (!NAME.test(name)) return json({ error: "a workspace name is 1–64 of A-Z a-z 0-9 . _ -", code: "EINVAL" }, 400);
    const computer = env.COMPUTER.get(env.COMPUTER.idFromName(name));
    // The object sees only its own route; the body (and a streamed reply) pass straight through.
    const inner = new URL(match[2] as string, "http://computer");
    // What the object throws is answered here as {error, code}: never a stack trace or a path of this machine.
    return computer.fetch(new Request(inner, request)).catch(errorResponse);
  },
} satisfies ExportedHandler<Env>;

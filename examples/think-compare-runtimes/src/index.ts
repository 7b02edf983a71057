/**
 * The think-compare-runtimes example: the same agent task on container-shell
 * and on worker-shell, side by side, live.
 *
 *   GET  /                                   the page (plain HTML + JS)
 *   POST /api/runs                           {task?, runtimes?} → 201 {id, runtimes, events: {<runtime>: url}}
 *   GET  /api/runs/<id>                      {id, runs: {<runtime>: RunState}}
 *   GET  /api/runs/<id>/events/<runtime>     Server-Sent Events (src/events.ts), replayed from the start
 *   POST /api/runs/<id>/stop                 stops both sides → {id, runs}
 *
 * Each side is its own Durable Object (`<id>:<runtime>`), so each has its
 * own workspace and neither waits for the other.
 */
import { PAGE } from "./page.js";
import { type Env, RUNTIMES, type Runtime } from "./runner.js";

export { WorkspaceServiceProxy } from "@cloudflare/computer";
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";
export { Runner } from "./runner.js";

const DEFAULT_TASK = "Sort the numbers in a file and count to three, one second per tick.";
const ALL = Object.keys(RUNTIMES) as Runtime[];

function runner(env: Env, id: string, runtime: Runtime) {
  return env.RUNNER.get(env.RUNNER.idFromName(`${id}:${runtime}`));
}

async function states(env: Env, id: string, action: "state" | "stop") {
  const entries = await Promise.all(ALL.map(async (rt) => [rt, await runner(env, id, rt)[action]()] as const));
  return Object.fromEntries(entries.filter(([, state]) => state !== null));
}

function isRuntime(value: unknown): value is Runtime {
  return typeof value === "string" && Object.hasOwn(RUNTIMES, value);
}

async function createRun(request: Request, env: Env): Promise<Response> {
  let body: { task?: unknown; runtimes?: unknown } = {};
  if (request.headers.get("content-length") !== "0") {
    try {
      body = ((await request.json()) ?? {}) as typeof body;
    } catch {
      return Response.json({ error: "the body must be JSON" }, { status: 400 });
    }
  }
  const task = body.task === undefined || body.task === "" ? DEFAULT_TASK : body.task;
  if (typeof task !== "string") return Response.json({ error: "task must be a string" }, { status: 400 });
  const runtimes = body.runtimes ?? ALL;
  if (!Array.isArray(runtimes) || runtimes.length === 0 || !runtimes.every(isRuntime)) {
    return Response.json({ error: `runtimes: a non-empty list of ${ALL.join(", ")}` }, { status: 400 });
  }
  const id = crypto.randomUUID();
  await Promise.all(runtimes.map((rt) => runner(env, id, rt).start(id, rt, task)));
  const events = Object.fromEntries(runtimes.map((rt) => [rt, `/api/runs/${id}/events/${rt}`]));
  return Response.json({ id, task, runtimes, events }, { status: 201 });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/" && request.method === "GET") {
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (pathname === "/api/runs") {
      return request.method === "POST" ? createRun(request, env) : new Response("POST only\n", { status: 405 });
    }
    const match = /^\/api\/runs\/([0-9a-f-]{36})(?:\/(stop|events\/([a-z-]+)))?$/.exec(pathname);
    if (!match) return new Response("not found\n", { status: 404 });
    const [, id, action, runtime] = match as unknown as [string, string, string | undefined, string | undefined];
    if (action === "stop") {
      if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
      const runs = await states(env, id, "stop");
      return Object.keys(runs).length === 0
        ? new Response("no such run\n", { status: 404 })
        : Response.json({ id, runs });
    }
    if (request.method !== "GET") return new Response("GET only\n", { status: 405 });
    if (action === undefined) {
      const runs = await states(env, id, "state");
      return Object.keys(runs).length === 0
        ? new Response("no such run\n", { status: 404 })
        : Response.json({ id, runs });
    }
    if (!isRuntime(runtime)) return new Response(`runtime: one of ${ALL.join(", ")}\n`, { status: 404 });
    return runner(env, id, runtime).fetch(request);
  },
} satisfies ExportedHandler<Env>;

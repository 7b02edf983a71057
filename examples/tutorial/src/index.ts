/**
 * The tutorial example: a prompt in, a PDF out.
 *
 *   POST /prompt          {prompt, name?} → {summary, url, model, demo}: the agent writes Markdown, renders
 *                         it to PDF in the container (pandoc + groff), publishes it for 24 h (`url`)
 *   GET  /_r2/<bucket>/…  dev and tests only: the local stand-in for R2's presigned URLs (src/local-r2.ts)
 *
 * `name` picks the Durable Object (and so the workspace) that does the work; default "tutorial".
 */
import { LOCAL_R2_ROUTE, serveLocalR2 } from "./local-r2.js";
import type { Env } from "./tutor.js";

export { WorkspaceProxy } from "@cloudflare/computer/backends/container";
export { Tutor } from "./tutor.js";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith(LOCAL_R2_ROUTE) && env.LOCAL_R2_ENDPOINT) {
      return serveLocalR2(request, env.ASSETS, env.ASSETS_BUCKET_NAME);
    }
    if (url.pathname !== "/prompt") {
      return new Response('tutorial example: POST /prompt {"prompt":"…"} → {summary, url}\n', { status: 404 });
    }
    if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
    let body: { prompt?: unknown; name?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return Response.json({ error: "the body must be JSON" }, { status: 400 });
    }
    if (typeof body?.prompt !== "string" || body.prompt.trim() === "") {
      return Response.json({ error: "prompt (a non-empty string) is required" }, { status: 400 });
    }
    if (body.name !== undefined && (typeof body.name !== "string" || body.name === "")) {
      return Response.json({ error: "name must be a non-empty string" }, { status: 400 });
    }
    const tutor = env.TUTOR.get(env.TUTOR.idFromName(body.name ?? "tutorial"));
    try {
      const reply = await tutor.prompt(body.prompt);
      // No URL: the agent did not publish (or publishing failed); the summary says what happened.
      return Response.json(reply, { status: reply.url === null ? 502 : 200 });
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
    }
  },
} satisfies ExportedHandler<Env>;

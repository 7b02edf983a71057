/**
 * The main module of the `computer-tools:workerd` test project: a bare
 * Durable Object with SQLite storage. Tests build their Workspace over its
 * `ctx.storage` inside `runInDurableObject` (see harness.worker.ts).
 */
import { DurableObject } from "cloudflare:workers";

export class ToolsObject extends DurableObject<Cloudflare.Env> {}

export default {
  fetch(): Response {
    return new Response("computer tools test worker");
  },
} satisfies ExportedHandler;

/**
 * The main module of the `rpc:workerd` test project. `TestPeerObject` is a
 * Durable Object with SQLite storage: tests enter it with
 * `runInDurableObject`, or reach it through this worker's `fetch`, where an
 * upgrade to `/api` (with the test bearer) is served a real SyncPeer.
 */

import { DurableObject } from "cloudflare:workers";
import { openDurableObjectDatabase } from "@cloudflare/dofs";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { acceptWebSocketSession, createWorkspaceServerFor } from "../src/server/index.js";

export const TEST_BEARER = "Bearer test-secret";

export class TestPeerObject extends DurableObject<Cloudflare.Env> {
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("upgrade", { status: 400 });
    if (request.headers.get("authorization") !== TEST_BEARER) {
      return new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    server.accept();
    const peer = new SyncPeer(openDurableObjectDatabase(this.ctx.storage));
    acceptWebSocketSession(server, createWorkspaceServerFor(peer, undefined));
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
}

export default {
  fetch(request: Request, env: Cloudflare.Env): Promise<Response> {
    return env.PEER.get(env.PEER.idFromName(new URL(request.url).pathname)).fetch(request);
  },
} satisfies ExportedHandler<Cloudflare.Env>;

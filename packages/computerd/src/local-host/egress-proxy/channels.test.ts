/**
 * The host's egress channels over a real WebSocket on 127.0.0.1: the
 * "Durable Object" end serves an `EgressEndpoint` on a socket it dialled, as
 * local-egress.ts does in workerd. A forwarded request arrives stamped like
 * `WorkspaceProxy` stamps it, bodies stream both ways, a newer channel
 * replaces an older one, and a closed channel means 502.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER, type EgressEndpoint } from "@cloudflare/computer-rpc";
import { acceptWebSocketSession, type Session } from "@cloudflare/computer-rpc/server";
import { RpcTarget } from "capnweb";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { waitFor } from "../../../test/wait.js";
import { EgressChannels } from "./channels.js";

interface Arrived {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

class Endpoint extends RpcTarget implements EgressEndpoint {
  readonly arrived: Arrived[] = [];
  readonly #label: string;

  constructor(label: string) {
    super();
    this.#label = label;
  }

  async fetch(request: Request): Promise<Response> {
    this.arrived.push({
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
    });
    return new Response(`${this.#label} answered`, { status: 207, headers: { "x-from": this.#label } });
  }
}

let server: Server;
let channels: EgressChannels;
let url: string;
const objectSides: Session<unknown>[] = [];

beforeAll(async () => {
  channels = new EgressChannels();
  const wss = new WebSocketServer({ noServer: true });
  server = createServer();
  server.on("upgrade", (request, socket, head) => {
    const token = String(request.headers[EGRESS_TOKEN_HEADER]);
    wss.handleUpgrade(request, socket, head, (ws) => channels.open("box", ws, token));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/containers/box/egress`;
});

afterEach(async () => {
  await Promise.all(objectSides.splice(0).map((session) => session.close()));
  // The host drops a channel when its socket closes: let it, so the next test starts with none.
  await waitFor(() => !channels.has("box"), "the closed channel dropped");
});

afterAll(async () => {
  await channels.closeAll();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Dials the host as a Durable Object would, serving `endpoint`. */
async function dial(token: string, endpoint: Endpoint): Promise<Session<unknown>> {
  const socket = new WebSocket(url, { headers: { [EGRESS_TOKEN_HEADER]: token } });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const session = acceptWebSocketSession(socket as never, endpoint);
  objectSides.push(session);
  // The host registers the channel in its upgrade callback; give the event loop a turn to run it.
  await waitFor(() => channels.has("box"), "the channel registered");
  return session;
}

describe("EgressChannels", () => {
  test("a forwarded request arrives at /api with the token and the original URL; the answer comes back", async () => {
    const endpoint = new Endpoint("first");
    await dial("token-1", endpoint);
    const response = await channels.forward(
      "box",
      new Request("https://example.com/data?q=1", {
        method: "POST",
        headers: { "x-app": "1" },
        body: "payload",
      }),
    );
    expect(response.status).toBe(207);
    expect(response.headers.get("x-from")).toBe("first");
    expect(await response.text()).toBe("first answered");
    expect(endpoint.arrived).toEqual([
      {
        url: "http://computer.internal/api",
        method: "POST",
        body: "payload",
        headers: expect.objectContaining({
          "x-app": "1",
          [EGRESS_TOKEN_HEADER]: "token-1",
          [EGRESS_URL_HEADER]: "https://example.com/data?q=1",
        }),
      },
    ]);
  });

  test("a newer channel replaces the older one, token and all", async () => {
    const older = new Endpoint("older");
    const olderSession = await dial("old-token", older);
    const newer = new Endpoint("newer");
    await dial("new-token", newer);
    // The host closes the older channel once the newer one is registered.
    await olderSession.closed;
    const response = await channels.forward("box", new Request("http://example.test/"));
    expect(await response.text()).toBe("newer answered");
    expect(older.arrived).toHaveLength(0);
    expect(newer.arrived[0]?.headers[EGRESS_TOKEN_HEADER]).toBe("new-token");
  });

  test("without an open channel the answer is 502", async () => {
    const session = await dial("t", new Endpoint("gone"));
    await session.close();
    await waitFor(() => !channels.has("box"), "the closed channel dropped");
    const response = await channels.forward("box", new Request("http://example.test/"));
    expect(response.status).toBe(502);
    expect(await response.text()).toMatch(/no egress channel/);
    expect((await channels.forward("other", new Request("http://example.test/"))).status).toBe(502);
  });
});

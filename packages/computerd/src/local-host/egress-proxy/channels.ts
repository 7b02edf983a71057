/**
 * The egress channels of the local container host: one capnweb session per
 * container, over a WebSocket its Durable Object opened (`GET
 * /v1/containers/<name>/egress` with the container's bearer — nothing can
 * address a Durable Object from outside, so the object dials in, as it does
 * for the dial-back). The host
 * plays `WorkspaceProxy`'s part: each intercepted request goes to the object
 * as a request to `/api` stamped with the egress token the object registered
 * and the original URL, and the object's backend checks the token, strips
 * both headers and calls the gateway — the same path as on Cloudflare.
 *
 * A newer channel for a name replaces the older one (a restarted Durable
 * Object reconnects with a new token); when a channel closes, its container's
 * requests get 502 until the object opens another.
 */
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER, type EgressEndpoint } from "@cloudflare/computer-rpc";
import { acceptWebSocketSession, type Session } from "@cloudflare/computer-rpc/server";
import { RpcTarget } from "capnweb";
import type { WebSocket } from "ws";

interface Channel {
  session: Session<EgressEndpoint>;
  token: string;
}

/** The host serves nothing on the channel; capnweb still wants a main object. */
class HostSide extends RpcTarget {}

export class EgressChannels {
  readonly #channels = new Map<string, Channel>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void = () => {}) {
    this.#log = log;
  }

  /** Takes over `socket` (already upgraded) as container `name`'s channel, replacing one that was open. */
  open(name: string, socket: WebSocket, token: string): void {
    const session = acceptWebSocketSession<EgressEndpoint>(socket, new HostSide());
    const channel: Channel = { session, token };
    const previous = this.#channels.get(name);
    this.#channels.set(name, channel);
    if (previous) void previous.session.close();
    void session.closed.then(({ code }) => {
      if (this.#channels.get(name) === channel) this.#channels.delete(name);
      this.#log(`[${name}] egress channel closed (${code})`);
    });
  }

  has(name: string): boolean {
    return this.#channels.has(name);
  }

  /** Sends `request` to container `name`'s Durable Object as `WorkspaceProxy` would; 502 without a channel. */
  async forward(name: string, request: Request): Promise<Response> {
    const channel = this.#channels.get(name);
    if (!channel?.session.isOpen()) {
      return new Response(
        "egress gateway unavailable: the Durable Object of this container has no egress channel open\n",
        { status: 502, headers: { "content-type": "text/plain; charset=utf-8" } },
      );
    }
    const headers = new Headers(request.headers);
    headers.set(EGRESS_TOKEN_HEADER, channel.token);
    headers.set(EGRESS_URL_HEADER, request.url);
    const hasBody = request.body !== null;
    const stamped = new Request("http://computer.internal/api", {
      method: request.method,
      headers,
      ...(hasBody ? { body: request.body, duplex: "half" } : {}),
    } as RequestInit);
    return channel.session.remote.fetch(stamped);
  }

  async closeAll(): Promise<void> {
    const channels = [...this.#channels.values()];
    this.#channels.clear();
    await Promise.all(channels.map((channel) => channel.session.close()));
  }
}

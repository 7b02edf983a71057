/**
 * computerd's half of the egress gateway: every connection a command opens
 * to the proxy port of its network namespace is carried, byte for byte, to
 * the local container host over a fresh `Upgrade: computerd-egress` request
 * authenticated with the container's bearer. The host speaks the proxy
 * protocol on it (packages/computerd/src/local-host/egress-proxy/proxy.ts); computerd
 * neither parses nor decrypts anything.
 */
import { request as httpRequest } from "node:http";
import type { Server, Socket } from "node:net";

/** The `Upgrade` token of an egress tunnel: after the 101 the socket speaks the HTTP proxy protocol. */
export const EGRESS_TUNNEL_PROTOCOL = "computerd-egress";

export interface TunnelOptions {
  /** The host's tunnel endpoint, `http://<host>/v1/containers/<name>/egress/tunnel`. */
  url: string;
  /** The container's bearer (RPC_CLIENT_SECRET). */
  secret: string | undefined;
  log?: (line: string) => void;
}

/** Tunnels every connection `listener` accepts to the host. */
export function tunnelConnections(listener: Server, options: TunnelOptions): void {
  listener.on("connection", (socket: Socket) => tunnel(socket, options));
}

function tunnel(client: Socket, options: TunnelOptions): void {
  // Hold the command's bytes until the host has accepted the tunnel.
  client.pause();
  client.on("error", () => {});
  const upgrade = httpRequest(options.url, {
    method: "GET",
    headers: {
      connection: "upgrade",
      upgrade: EGRESS_TUNNEL_PROTOCOL,
      ...(options.secret === undefined ? {} : { authorization: `Bearer ${options.secret}` }),
    },
  });
  upgrade.on("upgrade", (_response, upstream: Socket, head: Buffer) => {
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    if (head.length > 0) client.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
  });
  upgrade.on("response", (response) => {
    // Anything but a 101: tell the command in the proxy's own words.
    options.log?.(`egress tunnel refused: ${response.statusCode}`);
    response.resume();
    refuse(client);
  });
  upgrade.on("error", (error) => {
    options.log?.(`egress tunnel failed: ${error.message}`);
    refuse(client);
  });
  upgrade.end();
}

function refuse(client: Socket): void {
  client.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  // Read (and drop) what the command still sends, so its close is seen and the socket goes away.
  client.resume();
}

/**
 * The egress gateway's HTTP proxy on the local container host. computerd
 * tunnels each connection a command opens to the proxy port in its network
 * namespace here (packages/computerd/src/egress/tunnel.ts); this side speaks
 * the proxy protocol on it:
 *
 * - absolute-form requests (`GET http://host/path`) are plain HTTP;
 * - `CONNECT host:port` opens a tunnel, answered 200, whose first byte tells
 *   TLS (then terminated here with the gateway CA's leaf for `host`) from
 *   plain HTTP (what undici sends for `http://` URLs through a proxy).
 *
 * Every request found either way becomes one fetch `Request` with its
 * original URL, method, end-to-end headers and streamed body, handed to
 * `forward` — which sends it to the container's Durable Object — and the
 * answer is written back. Nothing here opens a connection to the internet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { type SecureContext, TLSSocket } from "node:tls";
import { endToEndHeaders, responseHeaders } from "./hop-by-hop.js";
import { firstChunk, prefixed } from "./prefixed.js";

export interface EgressProxyOptions {
  /** The TLS identity presented for a CONNECT target: the gateway CA's leaf for that host. */
  secureContext(host: string): Promise<SecureContext>;
  /** Sends one intercepted request (original URL, method, headers, body) on to container `name`'s gateway. */
  forward(name: string, request: Request): Promise<Response>;
  log?: (line: string) => void;
}

export interface EgressProxy {
  /** Serves the proxy protocol on `socket` for container `name`; `head` is anything read past an upgrade. */
  accept(socket: Duplex, name: string, head?: Buffer): void;
  /** Ends every connection it serves. */
  close(): void;
}

interface Connection {
  name: string;
  /** Inside a CONNECT tunnel: `https://host:port` or `http://host:port`; requests there come in origin form. */
  origin?: string;
}

/** The first byte of a TLS handshake record. */
const TLS_HANDSHAKE = 0x16;

export function createEgressProxy(options: EgressProxyOptions): EgressProxy {
  const log = options.log ?? (() => {});
  const connections = new WeakMap<Duplex, Connection>();
  const open = new Set<Duplex>();
  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      log(`egress ${request.method} ${request.url} failed: ${String(error)}`);
      if (!response.headersSent) text(response, 502, `egress gateway failed: ${String(error)}\n`);
      else response.destroy();
    });
  });
  server.on("connect", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    tunnel(request, socket, head).catch((error: unknown) => {
      log(`egress CONNECT ${request.url} failed: ${String(error)}`);
      socket.destroy();
    });
  });
  // WebSockets and other upgrades would need a socket to the gateway, which a fetch cannot give.
  server.on("upgrade", (_request: IncomingMessage, socket: Duplex) => {
    socket.end("HTTP/1.1 501 Not Implemented\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  });
  server.on("clientError", (_error, socket: Duplex) => socket.destroy());

  function attach(socket: Duplex, connection: Connection): void {
    connections.set(socket, connection);
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    server.emit("connection", socket);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const connection = connections.get(request.socket);
    if (!connection) return text(response, 500, "unknown egress connection\n");
    const target = targetOf(request.url ?? "", connection.origin);
    if (!target) {
      return text(response, 400, "this is the egress gateway's HTTP proxy: send absolute-form requests or CONNECT\n");
    }
    const method = request.method ?? "GET";
    // The fetch API cannot carry these methods.
    if (method === "TRACE" || method === "TRACK") return text(response, 405, `${method} is not supported\n`);
    const hasBody = method !== "GET" && method !== "HEAD";
    const outgoing = new Request(target, {
      method,
      headers: endToEndHeaders(request.rawHeaders),
      ...(hasBody ? { body: bodyOf(request), duplex: "half" } : {}),
    } as RequestInit);
    const answer = await options.forward(connection.name, outgoing);
    const headers = responseHeaders(answer.headers);
    if (answer.statusText) response.writeHead(answer.status, answer.statusText, headers);
    else response.writeHead(answer.status, headers);
    if (!answer.body || method === "HEAD") {
      response.end();
      await answer.body?.cancel();
      return;
    }
    // A client that hangs up early ends the pipeline; the rest of the body is canceled, not an error.
    await pipeline(Readable.fromWeb(answer.body as unknown as NodeReadableStream<Uint8Array>), response).catch(() =>
      response.destroy(),
    );
  }

  async function tunnel(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const from = connections.get(socket);
    const authority = authorityOf(request.url ?? "");
    if (!from || !authority) {
      socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    const first = await firstChunk(socket, head);
    if (first[0] === TLS_HANDSHAKE) {
      const secureContext = await options.secureContext(authority.hostname);
      const tls = new TLSSocket(prefixed(socket, first), { isServer: true, secureContext });
      tls.on("error", (error) => log(`egress TLS for ${authority.host} failed: ${error.message}`));
      attach(tls, { name: from.name, origin: `https://${authority.host}` });
    } else {
      attach(prefixed(socket, first), { name: from.name, origin: `http://${authority.host}` });
    }
  }

  return {
    accept(socket, name, head) {
      attach(head && head.length > 0 ? prefixed(socket, head) : socket, { name });
    },
    close() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}

/** The URL a proxied request is for, or undefined when it cannot be one. */
function targetOf(url: string, origin: string | undefined): URL | undefined {
  try {
    if (origin !== undefined) {
      // Origin form inside a tunnel; an absolute URL there still goes to the tunnel's host.
      if (url.startsWith("/")) return new URL(`${origin}${url}`);
      const absolute = new URL(url);
      return new URL(`${origin}${absolute.pathname}${absolute.search}`);
    }
    const target = new URL(url);
    return target.protocol === "http:" || target.protocol === "https:" ? target : undefined;
  } catch {
    return undefined;
  }
}

/** `host:port` of a CONNECT request (`[v6]:port` too), as a URL's parts; undefined when malformed. */
function authorityOf(target: string): { host: string; hostname: string } | undefined {
  if (!/^[^/?#@\s]+:\d{1,5}$/.test(target)) return undefined;
  try {
    const url = new URL(`https://${target}`);
    // `hostname` keeps an IPv6 address in brackets; the certificate wants it bare.
    return { host: url.host, hostname: url.hostname.replace(/^\[(.*)\]$/, "$1") };
  } catch {
    return undefined;
  }
}

/** The request body as a web stream of plain `Uint8Array`s (capnweb serializes those, not Buffers). */
function bodyOf(request: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = request[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else {
        const chunk = next.value as Buffer;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    },
    cancel() {
      request.destroy();
    },
  });
}

function text(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(body);
}

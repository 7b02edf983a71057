/**
 * The local container host's HTTP surface: the container seam a Durable
 * Object reaches with `localContainer(...)` (see
 * packages/computer/src/backends/container/host/local.ts for the route list).
 *
 * The dial-back: in production computerd dials the Durable Object through
 * Cloudflare's outbound interception. Here the DO opens `GET …/dial` (a
 * WebSocket) first; the host holds that upgrade until computerd dials
 * `…/callback/api` with the container's bearer, then answers both and
 * splices the two sockets, frame for frame.
 *
 * Egress `http-gateway` (see egress/): the Durable Object opens `GET …/egress`
 * (a WebSocket carrying its egress token) as the channel intercepted requests
 * travel on, and computerd opens `GET …/egress/tunnel` (an `Upgrade:
 * computerd-egress` with the container's bearer) for every connection a
 * command makes to its proxy port; the host's proxy serves that connection.
 */

import { timingSafeEqual } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Duplex } from "node:stream";
import { EGRESS_TOKEN_HEADER } from "@cloudflare/computer-rpc";
import { type WebSocket, WebSocketServer } from "ws";
import { EGRESS_TUNNEL_PROTOCOL } from "../egress/tunnel.js";
import { readBody } from "../http/body.js";
import type { ContainerSet, EgressMode } from "./containers.js";
import type { EgressChannels } from "./egress-proxy/channels.js";
import type { EgressProxy } from "./egress-proxy/proxy.js";

export interface HostServerOptions {
  containers: ContainerSet;
  /** Egress `http-gateway`: the Durable Objects' channels and the proxy commands' connections reach. */
  egress?: { channels: EgressChannels; proxy: EgressProxy };
  log?: (line: string) => void;
}

interface WaitingDial {
  request: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  timer: ReturnType<typeof setTimeout>;
}

interface ContainerCall {
  name: string;
  request: IncomingMessage;
  response: ServerResponse;
}

/** Bodies the host reads are small JSON (a start request's env); a larger one is refused. */
const MAX_BODY = 1024 * 1024;

const ROUTE = /^\/v1\/containers\/([A-Za-z0-9._-]{1,128})(\/.*)?$/;
const DEFAULT_DIAL_TIMEOUT_MS = 30_000;

export function createHostServer(options: HostServerOptions): Server {
  const { containers } = options;
  const log = options.log ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  const waiting = new Map<string, WaitingDial>();

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      log(`${request.method} ${request.url} failed: ${String(error)}`);
      if (!response.headersSent) send(response, 500, { error: String(error) });
      else response.destroy();
    });
  });

  /** A container's routes, by `<method> <rest of the path>`; `*` matches any method. */
  const routes: Record<string, (call: ContainerCall) => void | Promise<void>> = {
    "GET ": ({ name, response }) => {
      const running = containers.get(name);
      const exit = containers.exit(name);
      send(response, 200, {
        state: running ? "running" : "stopped",
        ...(running ? { runtimeId: running.runtimeId } : {}),
        ...(exit ? { exit } : {}),
      });
    },
    "POST /start": async ({ name, request, response }) => {
      const body = JSON.parse(await readJson(request)) as {
        env?: Record<string, string>;
        enableInternet?: boolean;
        egress?: string;
        runtimeId?: string;
      };
      if (typeof body.runtimeId !== "string" || typeof body.env !== "object" || body.env === null) {
        return send(response, 400, { error: "start needs { env, enableInternet, runtimeId }" });
      }
      if (body.egress !== undefined && !isEgressMode(body.egress)) {
        return send(response, 400, { error: "egress must be none, direct or http-gateway" });
      }
      const started = await containers.start(name, {
        env: body.env,
        enableInternet: body.enableInternet === true,
        ...(body.egress === undefined ? {} : { egress: body.egress }),
        runtimeId: body.runtimeId,
      });
      send(response, 200, { state: "running", runtimeId: started.runtimeId });
    },
    "POST /stop": async ({ name, response }) => {
      await containers.stop(name);
      response.writeHead(204).end();
    },
    "POST /crash-at": async ({ name, request, response }) => {
      // A crash at an exact sync step of the next launch, for crash tests (cli/crash-at.ts).
      const body = JSON.parse(await readJson(request)) as { at?: unknown };
      if (typeof body.at !== "string") return send(response, 400, { error: 'crash-at needs { at: "<method>:<n>" }' });
      containers.armCrash(name, body.at);
      response.writeHead(204).end();
    },
    "POST /kill": async ({ name, response }) => {
      // A crash, for tests and for unsticking a wedged daemon: no grace, no clean unmount (auto_unmount cleans up).
      await containers.kill(name);
      response.writeHead(204).end();
    },
    "* /callback/health": callbackHealth,
    "* /callback/": callbackHealth,
  };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://host");
    if (url.pathname === "/health") return send(response, 200, { ok: true, containers: containers.names() });
    const match = ROUTE.exec(url.pathname);
    if (!match?.[1]) return send(response, 404, { error: "not found" });
    const call: ContainerCall = { name: match[1], request, response };
    const rest = match[2] ?? "";
    const handler = routes[`${request.method} ${rest}`] ?? routes[`* ${rest}`];
    if (handler) return handler(call);
    const port = /^\/port\/(\d+)(\/.*)$/.exec(rest);
    if (port?.[2]) return forward(call.name, port[2] + url.search, request, response);
    send(response, 404, { error: "not found" });
  }

  function forward(name: string, path: string, request: IncomingMessage, response: ServerResponse): void {
    const container = containers.get(name);
    if (!container) {
      const exit = containers.exit(name);
      response
        .writeHead(410, { "content-type": "text/plain" })
        .end(exit ? `exit ${exit.exitCode ?? exit.signal} at ${new Date(exit.at).toISOString()}` : "not running");
      return;
    }
    const upstream = httpRequest(
      { host: "127.0.0.1", port: container.port, method: request.method, path, headers: request.headers },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on("error", (error) => {
      if (!response.headersSent) send(response, 502, { error: String(error) });
      else response.destroy();
    });
    request.pipe(upstream);
  }

  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://host");
    const match = ROUTE.exec(url.pathname);
    const name = match?.[1];
    const rest = match?.[2];
    if (!name) return reject(socket, 404, "not found");
    if (rest === "/dial") {
      waiting.get(name)?.socket.destroy();
      const timeoutMs = Number(request.headers["x-dial-timeout-ms"]) || DEFAULT_DIAL_TIMEOUT_MS;
      const timer = setTimeout(() => {
        if (waiting.get(name)?.socket === socket) waiting.delete(name);
        reject(socket, 504, "computerd did not dial back");
      }, timeoutMs);
      waiting.set(name, { request, socket, head, timer });
      socket.on("close", () => {
        if (waiting.get(name)?.socket === socket) {
          clearTimeout(timer);
          waiting.delete(name);
        }
      });
      return;
    }
    if (rest === "/callback/api") {
      if (!hasBearer(request, containers.get(name)?.secret)) return reject(socket, 401, "unauthorized");
      const dial = waiting.get(name);
      if (!dial) return reject(socket, 409, "no Durable Object is waiting for this dial-back");
      waiting.delete(name);
      clearTimeout(dial.timer);
      wss.handleUpgrade(dial.request, dial.socket, dial.head, (toObject) => {
        wss.handleUpgrade(request, socket, head, (toDaemon) => splice(toObject, toDaemon));
      });
      return;
    }
    if (rest === "/egress") {
      const token = request.headers[EGRESS_TOKEN_HEADER];
      if (!options.egress) return reject(socket, 404, "this host has no egress gateway");
      // Only the holder of the container's secret (its Durable Object) may receive its commands' requests.
      if (!hasBearer(request, containers.get(name)?.secret)) return reject(socket, 401, "unauthorized");
      if (typeof token !== "string" || token === "") return reject(socket, 400, `missing ${EGRESS_TOKEN_HEADER}`);
      const { channels } = options.egress;
      wss.handleUpgrade(request, socket, head, (ws) => channels.open(name, ws, token));
      return;
    }
    if (rest === "/egress/tunnel" && request.headers.upgrade?.toLowerCase() === EGRESS_TUNNEL_PROTOCOL) {
      if (!options.egress) return reject(socket, 404, "this host has no egress gateway");
      if (!hasBearer(request, containers.get(name)?.secret)) return reject(socket, 401, "unauthorized");
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: ${EGRESS_TUNNEL_PROTOCOL}\r\n\r\n`,
      );
      options.egress.proxy.accept(socket, name, head);
      return;
    }
    if (rest?.startsWith("/port/")) return reject(socket, 400, "use /dial for WebSockets");
    reject(socket, 404, "not found");
  });

  server.on("close", () => {
    for (const dial of waiting.values()) {
      clearTimeout(dial.timer);
      dial.socket.destroy();
    }
  });
  return server;
}

/** Frames go across unchanged (text stays text); a close on one side closes the other with its code. */
function splice(a: WebSocket, b: WebSocket): void {
  const pipe = (from: WebSocket, to: WebSocket): void => {
    from.on("message", (data, isBinary) => {
      if (to.readyState === to.OPEN) to.send(data, { binary: isBinary });
    });
    from.on("close", (code, reason) => {
      if (to.readyState === to.OPEN || to.readyState === to.CONNECTING) {
        to.close(code === 1005 || code === 1006 ? 1000 : code, reason);
      }
    });
    from.on("error", () => to.terminate());
  };
  pipe(a, b);
  pipe(b, a);
}

function isEgressMode(value: string): value is EgressMode {
  return value === "none" || value === "direct" || value === "http-gateway";
}

/** `Authorization: Bearer <secret>` of a running container, compared in constant time. */
function hasBearer(request: IncomingMessage, secret: string | undefined): boolean {
  const bearer = /^bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ""))?.[1];
  if (secret === undefined || bearer === undefined) return false;
  const given = Buffer.from(bearer);
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function reject(socket: Duplex, status: number, message: string): void {
  socket.end(`HTTP/1.1 ${status} ${message}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(`${JSON.stringify(body)}\n`);
}

async function readJson(request: IncomingMessage): Promise<string> {
  const body = await readBody(request, MAX_BODY);
  if (body === undefined) throw new Error("body too large");
  return body;
}

function callbackHealth({ request, response }: ContainerCall): void {
  response.writeHead(200, { "content-type": "text/plain" }).end(request.method === "HEAD" ? undefined : "ok\n");
}

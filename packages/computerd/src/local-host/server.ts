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
import type { ContainerSet, EgressMode, LaunchRequest } from "./containers.js";
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
/** The longest a dial may wait for computerd (`x-dial-timeout-ms`), docs/limits.md. */
export const MAX_DIAL_TIMEOUT_MS = 120_000;
/** One WebSocket message across the splice and the egress channel: the session's own limit (docs/limits.md). */
export const MAX_HOST_WS_FRAME_BYTES = 32 * 1024 * 1024;

export function createHostServer(options: HostServerOptions): Server {
  const { containers } = options;
  const log = options.log ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_HOST_WS_FRAME_BYTES });
  const waiting = new Map<string, WaitingDial>();

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      log(
        `${request.method} ${request.url} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      // The log has the detail; the caller gets the first line, with no stack and no path of this machine.
      if (!response.headersSent) send(response, 500, { error: firstLine(error), code: "EINTERNAL" });
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
      const body = await readJson(request, response);
      if (body === undefined) return;
      const launch = parseStart(body);
      if (typeof launch === "string") return send(response, 400, { error: launch, code: "EINVAL" });
      const started = await containers.start(name, launch);
      send(response, 200, { state: "running", runtimeId: started.runtimeId });
    },
    "POST /stop": async ({ name, response }) => {
      await containers.stop(name);
      response.writeHead(204).end();
    },
    "POST /crash-at": async ({ name, request, response }) => {
      // A crash at an exact sync step of the next launch, for crash tests (cli/crash-at.ts).
      const body = await readJson(request, response);
      if (body === undefined) return;
      if (typeof body.at !== "string" || !/^[a-zA-Z]+:[1-9][0-9]{0,8}$/.test(body.at)) {
        return send(response, 400, { error: 'crash-at needs { at: "<method>:<n>" }', code: "EINVAL" });
      }
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
    if (!match?.[1]) return send(response, 404, { error: `no route ${url.pathname.slice(0, 256)}`, code: "ENOENT" });
    const call: ContainerCall = { name: match[1], request, response };
    const rest = match[2] ?? "";
    const handler = routes[`${request.method} ${rest}`] ?? routes[`* ${rest}`];
    if (handler) return handler(call);
    const port = /^\/port\/(\d+)(\/.*)$/.exec(rest);
    if (port?.[2]) return forward(call.name, port[2] + url.search, request, response);
    const allowed = Object.keys(routes)
      .filter((key) => key.endsWith(` ${rest}`))
      .map((key) => key.split(" ")[0] as string);
    if (allowed.length > 0) {
      response.setHeader("allow", allowed.join(", "));
      return send(response, 405, { error: `method not allowed: use ${allowed.join(", ")}`, code: "EMETHOD" });
    }
    send(response, 404, { error: `no route ${url.pathname.slice(0, 256)}`, code: "ENOENT" });
  }

  function forward(name: string, path: string, request: IncomingMessage, response: ServerResponse): void {
    const container = containers.get(name);
    if (!container) {
      const exit = containers.exit(name);
      const error = exit ? `exit ${exit.exitCode ?? exit.signal} at ${new Date(exit.at).toISOString()}` : "not running";
      send(response, 410, { error, code: "ECONTAINEREXITED" });
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
      if (!response.headersSent) send(response, 502, { error: firstLine(error), code: "EUPSTREAM" });
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
      const asked = Number(request.headers["x-dial-timeout-ms"]);
      const timeoutMs =
        Number.isFinite(asked) && asked > 0 ? Math.min(asked, MAX_DIAL_TIMEOUT_MS) : DEFAULT_DIAL_TIMEOUT_MS;
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

/** The JSON object body, or undefined once a 413 or 400 has been sent. */
async function readJson(
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Record<string, unknown> | undefined> {
  const text = await readBody(request, MAX_BODY);
  if (text === undefined) {
    // The rest of the body is never read: the connection cannot carry another request.
    response.setHeader("connection", "close");
    send(response, 413, { error: `body over ${MAX_BODY} bytes`, code: "E2BIG" });
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    send(response, 400, { error: "body must be JSON", code: "EINVAL" });
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    send(response, 400, { error: "body must be a JSON object", code: "EINVAL" });
    return undefined;
  }
  return body as Record<string, unknown>;
}

/** A start body as a launch, or why it is none: env of strings (names without = or NUL), a printable runtimeId. */
function parseStart(body: Record<string, unknown>): LaunchRequest | string {
  const { env, enableInternet, egress, runtimeId } = body;
  if (typeof runtimeId !== "string" || !/^[\x21-\x7e]{1,256}$/.test(runtimeId)) {
    return "start needs { env, enableInternet, runtimeId }: runtimeId is 1 to 256 printable ASCII characters";
  }
  if (typeof env !== "object" || env === null || Array.isArray(env)) return "start needs { env }: an object of strings";
  for (const [key, value] of Object.entries(env)) {
    if (key === "" || key.includes("=") || key.includes("\0")) return `env name ${JSON.stringify(key)} is not a name`;
    if (typeof value !== "string" || value.includes("\0")) return `env.${key} must be a string without NUL`;
  }
  if (enableInternet !== undefined && typeof enableInternet !== "boolean") return "enableInternet must be a boolean";
  if (egress !== undefined && (typeof egress !== "string" || !isEgressMode(egress))) {
    return "egress must be none, direct or http-gateway";
  }
  return {
    env: env as Record<string, string>,
    enableInternet: enableInternet === true,
    ...(egress === undefined ? {} : { egress: egress as EgressMode }),
    runtimeId,
  };
}

/** An error's first line: what a caller may see of it. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]?.slice(0, 500) ?? "";
}

function callbackHealth({ request, response }: ContainerCall): void {
  response.writeHead(200, { "content-type": "text/plain" }).end(request.method === "HEAD" ? undefined : "ok\n");
}

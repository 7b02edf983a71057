/**
 * The daemon's HTTP + WebSocket surface (see the route table in
 * docs/computerd.md). Auth is checked before anything else except /health;
 * a failure is 401 with `www-authenticate: Bearer`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { RunnerLike } from "@cloudflare/computer-rpc";
import { acceptWebSocketSession, createWorkspaceServerFor, type Session } from "@cloudflare/computer-rpc/server";
import type { Database } from "@cloudflare/dofs";
import type { SyncRPC } from "@cloudflare/dofs/sync";
import { WebSocketServer } from "ws";
import { readBody } from "../http/body.js";
import type { Logger } from "../log/logger.js";
import { isAuthorized } from "./auth.js";
import { dialUpstream, parseConnectBody, upstreamUrl, waitHealthy } from "./connect.js";
import { storeStats } from "./stats.js";

export interface DaemonServerOptions {
  secret: string | undefined;
  peer: SyncRPC;
  runner: RunnerLike;
  db: Database;
  info: () => { backend: { kind: string }; mountPoint: string; port: number };
  trackStubs: boolean;
  log: Logger;
  /** Extra numbers for /__computerd/stats (the mount's counters). */
  extraStats?: () => Record<string, number>;
}

export interface DaemonServer {
  readonly http: Server;
  /** Open sessions: accepted on /api plus the upstream one. */
  sessionCount(): number;
  close(): Promise<void>;
}

/** Versions `ws` speaks; a client asking for another single version gets 426. */
const WS_VERSIONS = "13, 8";
const MAX_CONNECT_BODY = 64 * 1024;
/**
 * One WebSocket message at most (docs/limits.md): the session's own limit, so
 * a larger frame is refused (close 1009) from its header, before it is buffered.
 */
export const MAX_WS_FRAME_BYTES = 32 * 1024 * 1024;
const READ = "GET, HEAD";

interface Route {
  /** The methods it answers, as the `allow` header of a 405 says them; unset: any. */
  allow?: string;
  /** Whether the route is on; an off route is 404. */
  when?: () => boolean;
  serve(request: IncomingMessage, response: ServerResponse, head: boolean): void | Promise<void>;
}

export function createDaemonServer(options: DaemonServerOptions): DaemonServer {
  const sessions = new Set<Session<unknown>>();
  let upstream: Session<unknown> | undefined;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: true, maxPayload: MAX_WS_FRAME_BYTES });

  const serve = (socket: Parameters<typeof acceptWebSocketSession>[0]): Session<unknown> => {
    const target = createWorkspaceServerFor(options.peer, options.runner);
    const session = acceptWebSocketSession(socket, target);
    sessions.add(session);
    session.closed.then(() => {
      sessions.delete(session);
      // Subscriptions die with their session, or a restarted Durable Object could not reattach (EEXEC_BUSY).
      target[Symbol.dispose]();
    });
    return session;
  };

  const http = createServer((request, response) => {
    handle(request, response).catch((error) => {
      options.log.error(`${request.method} ${request.url} failed`, error);
      // The log has the stack; the caller gets no stack and no host path.
      if (!response.headersSent) json(response, 500, { error: "internal error", code: "EINTERNAL" });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://computerd").pathname;
    const readOnly = method === "GET" || method === "HEAD";
    if (path === "/health" && readOnly) {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(method === "HEAD" ? undefined : "ok\n");
      return;
    }
    if (!isAuthorized(request, options.secret)) {
      return json(
        response,
        401,
        { error: "unauthorized: give Authorization: Bearer <secret>", code: "EACCES" },
        false,
        {
          "www-authenticate": "Bearer",
        },
      );
    }
    const route = routes[path];
    if (route === undefined) {
      if (!readOnly) return methodNotAllowed(response, READ);
      return notFound(response, path);
    }
    if (route.when !== undefined && !route.when()) return notFound(response, path);
    if (route.allow !== undefined && !route.allow.split(", ").includes(method)) {
      return methodNotAllowed(response, route.allow);
    }
    return route.serve(request, response, method === "HEAD");
  }

  /**
   * Every authenticated route. `allow` lists the methods (405 for the rest;
   * none means any), `when` hides a route that is off (404).
   */
  const routes: Record<string, Route> = {
    // An upgrade never reaches here (the server's "upgrade" event takes it).
    "/api": {
      serve: (_request, response) => json(response, 400, { error: "expected a WebSocket upgrade", code: "EPROTOCOL" }),
    },
    "/api/watermarks": {
      allow: READ,
      serve: async (_request, response, head) => json(response, 200, await options.peer.watermarks({}), head),
    },
    "/connect": { allow: "POST", serve: (request, response) => connect(request, response) },
    "/__computerd/info": {
      allow: READ,
      serve: (_request, response, head) => json(response, 200, options.info(), head),
    },
    "/__computerd/stats": {
      allow: READ,
      serve: (_request, response, head) =>
        json(response, 200, { ...storeStats(options.db), ...options.extraStats?.() }, head),
    },
    "/__computerd/stubs": {
      allow: READ,
      when: () => options.trackStubs,
      // capnweb 0.12 has no stub registry of its own; what the daemon tracks is its sessions.
      serve: (_request, response) =>
        json(response, 200, { sessions: sessions.size, upstream: upstream?.isOpen() ?? false }),
    },
    "/": { allow: READ, serve: (_request, response, head) => json(response, 200, {}, head) },
  };

  async function connect(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request, MAX_CONNECT_BODY);
    if (body === undefined) {
      // The rest of the body is never read: the connection cannot carry another request.
      return json(response, 413, { ok: false, error: `body over ${MAX_CONNECT_BODY} bytes`, code: "E2BIG" }, false, {
        connection: "close",
      });
    }
    const parsed = parseConnectBody(body);
    if (typeof parsed === "string") return json(response, 400, { ok: false, error: parsed, code: "EINVAL" });
    // A caller that goes away stops the wait: nothing would take the answer.
    const gone = new AbortController();
    response.once("close", () => gone.abort());
    const healthUrl = `${parsed.base}${parsed.health}`;
    if (!(await waitHealthy(healthUrl, parsed.healthTimeoutMs, gone.signal))) {
      if (gone.signal.aborted) return;
      return json(response, 502, {
        ok: false,
        error: `${healthUrl} did not answer within ${parsed.healthTimeoutMs} ms`,
        code: "ETIMEDOUT",
      });
    }
    const url = upstreamUrl(parsed);
    const previous = upstream;
    upstream = undefined;
    await previous?.close();
    const socket = dialUpstream(url, options.secret);
    socket.on("error", (error) => options.log.error(`upstream ${url}`, error));
    upstream = serve(socket as unknown as Parameters<typeof acceptWebSocketSession>[0]);
    options.log.info(`connect: dialling ${url}`);
    json(response, 200, { ok: true, ws: url });
  }

  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://computerd").pathname;
    if (path !== "/api") return refuse(socket, 404, "Not Found");
    if (!isAuthorized(request, options.secret)) return refuse(socket, 401, "Unauthorized", "WWW-Authenticate: Bearer");
    const version = String(request.headers["sec-websocket-version"] ?? "").trim();
    if (/^\d+$/.test(version) && version !== "13" && version !== "8") {
      return refuse(socket, 426, "Upgrade Required", `Sec-WebSocket-Version: ${WS_VERSIONS}`);
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      serve(ws as unknown as Parameters<typeof acceptWebSocketSession>[0]);
    });
  });

  return {
    http,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions].map((session) => session.close()));
      wss.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

function refuse(socket: Duplex, status: number, reason: string, header?: string): void {
  const lines = [`HTTP/1.1 ${status} ${reason}`, "Connection: close", "Content-Length: 0"];
  if (header !== undefined) lines.push(header);
  socket.end(`${lines.join("\r\n")}\r\n\r\n`);
}

function json(
  response: ServerResponse,
  status: number,
  value: unknown,
  headOnly = false,
  headers: Record<string, string> = {},
): void {
  const body = `${JSON.stringify(value)}\n`;
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(headOnly ? undefined : body);
}

function notFound(response: ServerResponse, path: string): void {
  json(response, 404, { error: `no route ${path.slice(0, 256)}`, code: "ENOENT" });
}

function methodNotAllowed(response: ServerResponse, allow: string): void {
  json(response, 405, { error: `method not allowed: use ${allow}`, code: "EMETHOD" }, false, { allow });
}

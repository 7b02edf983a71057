/**
 * Opening the client's WebSocket in each runtime. A caller-supplied socket is
 * used as is; otherwise the socket is dialled and awaited until open, so a
 * refused connection rejects here rather than on the first call.
 */
import { rpcError } from "../errors.js";
import type { WebSocketLike } from "../session.js";

/**
 * A WebSocket class. The second argument is `{ headers }` when headers are
 * given (what `ws` accepts); standard WebSocket classes are only called with a URL.
 */
export type WebSocketConstructor = new (url: string, options?: never) => WebSocketLike;

export interface ConnectOptions {
  /** `ws(s)://` or `http(s)://` URL of the capnweb endpoint (computerd serves `/api`). */
  url?: string | URL;
  /** An open or connecting WebSocket to run the session on instead of dialling `url`. */
  socket?: WebSocketLike;
  /** The WebSocket class to dial with. Defaults: `ws` from the Node entry, the global `WebSocket` elsewhere. */
  WebSocketImpl?: WebSocketConstructor;
  /**
   * Upgrade request headers, e.g. `{ authorization: "Bearer …" }`. Honored by
   * `ws` (the Node default) and by workerd, where the socket is opened with
   * `fetch(url, { headers: { Upgrade: "websocket" } })`. A standard browser
   * WebSocket cannot send headers, so giving them there throws.
   */
  headers?: Record<string, string>;
  /**
   * workerd: what sends the upgrade request, instead of the global `fetch`: a
   * container port's or a service binding's `fetch`. The response must carry
   * a `webSocket`.
   */
  fetch?: (url: string, init: { headers: Record<string, string> }) => Promise<Response>;
}

type AcceptableSocket = WebSocketLike & { accept(): void };

export async function openSocket(options: ConnectOptions): Promise<WebSocketLike> {
  if (options.socket) return options.socket;
  if (options.url === undefined) throw new TypeError("either url or socket is required");
  const url = toWebSocketUrl(options.url);
  const headers = options.headers;
  if (options.WebSocketImpl) {
    const options_ = headers ? { headers } : undefined;
    return waitOpen(new options.WebSocketImpl(url, options_ as never), url);
  }
  if (options.fetch || typeof (globalThis as { WebSocketPair?: unknown }).WebSocketPair === "function") {
    return fetchUpgrade(url, headers, options.fetch ?? ((input, init) => fetch(input, init)));
  }
  const Global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (Global === undefined) {
    throw new TypeError(
      "no global WebSocket: pass WebSocketImpl (e.g. `ws`), or import @cloudflare/computer-rpc/client from Node",
    );
  }
  if (headers) throw new TypeError("this runtime's WebSocket cannot send headers: pass a WebSocketImpl such as `ws`");
  return waitOpen(new Global(url), url);
}

function toWebSocketUrl(url: string | URL): string {
  const parsed = new URL(url);
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  else if (parsed.protocol === "https:") parsed.protocol = "wss:";
  else if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new TypeError(`not a WebSocket URL: ${parsed.href}`);
  }
  return parsed.href;
}

function waitOpen(socket: WebSocketLike, url: string): Promise<WebSocketLike> {
  if (socket.readyState === 1) return Promise.resolve(socket);
  return new Promise((resolve, reject) => {
    let settled = false;
    socket.addEventListener("open", () => {
      settled = true;
      resolve(socket);
    });
    socket.addEventListener("error", (event) => {
      if (settled) return;
      settled = true;
      // `ws` reports a refused upgrade as "Unexpected server response: 401".
      const message = String((event as { message?: unknown })?.message ?? "");
      if (/\b401\b/.test(message)) reject(rpcError("EAUTH", "connect", url));
      else reject(rpcError("ESHUTDOWN", "connect", url, `could not connect${message ? ` (${message})` : ""}`));
    });
    socket.addEventListener("close", (event) => {
      if (settled) return;
      settled = true;
      reject(rpcError("ESHUTDOWN", "connect", url, `closed while connecting (${event.code})`));
    });
  });
}

/** workerd: a client WebSocket is the `webSocket` of an upgrade response, which must be accepted. */
async function fetchUpgrade(
  url: string,
  headers: Record<string, string> | undefined,
  send: NonNullable<ConnectOptions["fetch"]>,
): Promise<WebSocketLike> {
  const httpUrl = url.replace(/^ws/, "http");
  const response = await send(httpUrl, { headers: { ...headers, Upgrade: "websocket" } });
  const socket = (response as unknown as { webSocket?: AcceptableSocket | null }).webSocket;
  if (!socket) {
    await response.body?.cancel();
    if (response.status === 401) throw rpcError("EAUTH", "connect", url);
    throw rpcError("ESHUTDOWN", "connect", url, `the upgrade was refused (HTTP ${response.status})`);
  }
  socket.accept();
  return socket;
}

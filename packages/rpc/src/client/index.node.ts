/**
 * The Node build of `./client` (chosen by the `node` export condition): the
 * same API, dialling with `ws` unless a socket or WebSocketImpl is given, so
 * it works on Node 20 (no global WebSocket) and can send headers.
 */
import WebSocket from "ws";
import {
  type ClientOptions,
  createSyncClient as createSyncClientWith,
  createWorkspaceClient as createWorkspaceClientWith,
  type SyncClient,
  type WorkspaceClient,
} from "./clients.js";
import type { WebSocketConstructor } from "./connect.js";

export type { SessionClosed, WebSocketLike } from "../session.js";
export type { ClientOptions, SyncClient, WorkspaceClient } from "./clients.js";
export type { ConnectOptions, WebSocketConstructor } from "./connect.js";

/**
 * `ws` with a zero masking key, which makes it skip masking: RFC 6455 masks
 * client frames to protect browser-era proxies from cache poisoning, which
 * cannot happen on a daemon-to-Durable-Object channel, and `ws` masks in a
 * JavaScript loop (~450 ms of CPU per 64 MiB pushed). Compression stays off:
 * file chunks barely compress and deflate cut blob throughput fourfold.
 */
class UnmaskedWebSocket extends WebSocket {
  constructor(url: string, options?: WebSocket.ClientOptions) {
    super(url, { ...options, perMessageDeflate: false, generateMask: (mask: Buffer) => mask.fill(0) });
  }
}

const NodeWebSocket: WebSocketConstructor = UnmaskedWebSocket as unknown as WebSocketConstructor;

export function createSyncClient(options: ClientOptions): Promise<SyncClient> {
  return createSyncClientWith({ WebSocketImpl: NodeWebSocket, ...options });
}

export function createWorkspaceClient(options: ClientOptions): Promise<WorkspaceClient> {
  return createWorkspaceClientWith({ WebSocketImpl: NodeWebSocket, ...options });
}

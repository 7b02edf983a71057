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

const NodeWebSocket: WebSocketConstructor = WebSocket;

export function createSyncClient(options: ClientOptions): Promise<SyncClient> {
  return createSyncClientWith({ WebSocketImpl: NodeWebSocket, ...options });
}

export function createWorkspaceClient(options: ClientOptions): Promise<WorkspaceClient> {
  return createWorkspaceClientWith({ WebSocketImpl: NodeWebSocket, ...options });
}

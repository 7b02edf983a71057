/**
 * `@cloudflare/computer-rpc/client`: dial a workspace's capnweb endpoint.
 * Runs in workerd, browsers and Node ≥ 22; on Node the package's `node`
 * export condition resolves to `index.node.ts`, which dials with `ws`.
 */
export type { SessionClosed, WebSocketLike } from "../session.js";
export {
  type ClientOptions,
  createSyncClient,
  createWorkspaceClient,
  type SyncClient,
  type WorkspaceClient,
} from "./clients.js";
export type { ConnectOptions, WebSocketConstructor } from "./connect.js";

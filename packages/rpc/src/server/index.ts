/** `@cloudflare/computer-rpc/server`: what computerd (or any sync peer) serves. Runs in Node and workerd. */
export type { Session, SessionClosed, WebSocketLike } from "../session.js";
export { acceptWebSocketSession } from "./accept.js";
export { createShellServer } from "./shell-server.js";
export { checkedSync } from "./sync-checks.js";
export { createSyncServer } from "./sync-server.js";
export { createWorkspaceServer, createWorkspaceServerFor, type WorkspaceServerOptions } from "./workspace-server.js";

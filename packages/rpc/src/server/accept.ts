import { type Session, startSession, type WebSocketLike } from "../session.js";

/**
 * Starts a capnweb session on a WebSocket that is already accepted: a `ws`
 * socket from a Node http server's upgrade, a workerd `WebSocketPair` end
 * after `accept()`, or a socket this side dialled. `main` is what the peer
 * sees as its remote main (e.g. `createWorkspaceServer(...)`); `remote` is the
 * peer's main, typed by the caller (`unknown` when the peer serves nothing).
 */
export function acceptWebSocketSession<Remote = unknown>(socket: WebSocketLike, main: object): Session<Remote> {
  return startSession<Remote>(socket, main);
}

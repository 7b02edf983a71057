/**
 * The bench's serving side (computerd's role), one child process: a ws server
 * on 127.0.0.1 where `/api/<name>` is a SyncPeer over the better-sqlite3 file
 * `<dir>/peer-<name>.db`. It counts what crosses its sockets, both as TCP
 * bytes (WebSocket framing included) and as message payload bytes.
 *
 * `node sync-peer.node.mjs <dir>`; requests come over IPC (see process.node.ts).
 */
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { WebSocketServer } from "ws";
import { acceptWebSocketSession, createSyncServer } from "../src/server/index.js";
import { runSideOp, type SideOp, type SideState } from "../test/sync-ops.js";
import { MemoryWatch, serveParent } from "./process.node.js";

export interface WireCount {
  /** TCP bytes read and written on the peer's sockets: frames, headers and the upgrade. */
  tcpIn: number;
  tcpOut: number;
  /** WebSocket message payload bytes. */
  payloadIn: number;
  payloadOut: number;
  messagesIn: number;
  messagesOut: number;
}

const dir = process.argv[2] as string;
const workspaces = new Map<string, SideState & { peer: SyncPeer; close(): void }>();

function workspace(name: string) {
  let found = workspaces.get(name);
  if (!found) {
    const db = openNodeDatabase(join(dir, `peer-${name}.db`));
    found = { db, fs: new WorkspaceFilesystem(db), peer: new SyncPeer(db), close: () => db.close() };
    workspaces.set(name, found);
  }
  return found;
}

const sockets: Socket[] = [];
const payload = { payloadIn: 0, payloadOut: 0, messagesIn: 0, messagesOut: 0 };
const sizeOf = (data: unknown): number => {
  if (typeof data === "string") return Buffer.byteLength(data);
  if (Array.isArray(data)) return data.reduce((sum: number, part) => sum + sizeOf(part), 0);
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) return data.byteLength;
  return 0;
};

const http = createServer((_request, response) => response.writeHead(404).end());
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
http.on("upgrade", (request, socket, head) => {
  const name = /^\/api\/([\w.-]+)$/.exec(request.url ?? "")?.[1];
  if (name === undefined) {
    socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
    return;
  }
  sockets.push(socket as Socket);
  wss.handleUpgrade(request, socket, head, (ws) => {
    ws.on("message", (data) => {
      payload.messagesIn++;
      payload.payloadIn += sizeOf(data);
    });
    const send = ws.send.bind(ws);
    ws.send = ((data: unknown, ...rest: unknown[]) => {
      payload.messagesOut++;
      payload.payloadOut += sizeOf(data);
      return (send as (...args: unknown[]) => void)(data, ...rest);
    }) as typeof ws.send;
    acceptWebSocketSession(ws, createSyncServer(workspace(name).peer));
  });
});
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));

const memory = new MemoryWatch();
const refuse = (): never => {
  throw new Error("the peer does not dial");
};

serveParent(
  { port: (http.address() as AddressInfo).port },
  async (request) => {
    switch (request.kind) {
      case "op":
        return runSideOp(workspace(request.name as string), request.op as SideOp, refuse);
      case "memory-reset":
        return memory.reset();
      case "memory":
        return memory.read();
      case "wire":
        return {
          tcpIn: sockets.reduce((sum, socket) => sum + socket.bytesRead, 0),
          tcpOut: sockets.reduce((sum, socket) => sum + socket.bytesWritten, 0),
          ...payload,
        } satisfies WireCount;
      default:
        throw new Error(`unknown request ${request.kind}`);
    }
  },
  () => {
    for (const ws of wss.clients) ws.terminate();
    http.close();
    for (const { close } of workspaces.values()) close();
  },
);

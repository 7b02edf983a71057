/**
 * A real capnweb endpoint for tests: a Node http server with `ws` on
 * 127.0.0.1, port 0, serving `main` on every upgrade through
 * `acceptWebSocketSession`, like computerd's `/api`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { acceptWebSocketSession } from "../src/server/index.js";
import type { Session } from "../src/session.js";

export interface TestServer {
  /** `ws://127.0.0.1:<port>/api` */
  url: string;
  /** Every session accepted so far, in order. */
  sessions: Session<unknown>[];
  /** Upgrade requests seen, for header checks. */
  requests: IncomingMessage[];
  /** Closes every socket from the server side (1001), then the server. */
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Answer 401 to upgrades without this exact authorization header. */
  authorization?: string;
  perMessageDeflate?: boolean;
}

export async function startTestServer(main: () => object, options: TestServerOptions = {}): Promise<TestServer> {
  const http = createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: options.perMessageDeflate ?? false });
  const sessions: Session<unknown>[] = [];
  const requests: IncomingMessage[] = [];
  http.on("upgrade", (request, socket, head) => {
    requests.push(request);
    if (options.authorization !== undefined && request.headers.authorization !== options.authorization) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => sessions.push(acceptWebSocketSession(ws, main())));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/api`,
    sessions,
    requests,
    async close() {
      for (const ws of wss.clients) ws.close(1001, "server shutting down");
      await Promise.all(sessions.map((session) => session.closed));
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * The stand-in for the allowed URL (`https://example.com/` by default): a
 * plain HTTP server on 127.0.0.1 that names the path it served and records
 * every request, so a test can tell "the gateway refused it" (never arrived)
 * from "the server answered".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths requested so far, in order. */
  seen: string[];
  close(): Promise<void>;
}

export async function startLocalServer(): Promise<LocalServer> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.url ?? "");
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`local server saw ${request.method} ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

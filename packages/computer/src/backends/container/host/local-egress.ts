/**
 * Egress `http-gateway` on the local container host, the Durable Object's
 * side: the object opens a WebSocket to the host (`GET …/egress`, with its
 * egress token) and serves an `EgressEndpoint` on it. The host stamps each
 * request a command made with that token and the original URL, as
 * `WorkspaceProxy` does on Cloudflare, and the endpoint hands it to the same
 * handler Cloudflare's interception reaches (`backend.handleFetch`: token
 * check → strip headers → http(s) only → `gateway.fetch`).
 */
import { EGRESS_TOKEN_HEADER, type EgressEndpoint } from "@cloudflare/computer-rpc";
import { acceptWebSocketSession, type Session } from "@cloudflare/computer-rpc/server";
import { RpcTarget } from "capnweb";

export interface EgressChannelOptions {
  /** `<host>/v1/containers/<name>/egress`. */
  url: string;
  token: string;
  /** The container's bearer secret: the host lets only its Durable Object open the channel. */
  secret: string;
  fetch: (request: Request) => Promise<Response>;
  /** Where the requests go: the backend's `handleFetch`. */
  handle: (request: Request) => Promise<Response>;
}

export async function openEgressChannel(options: EgressChannelOptions): Promise<Session<unknown>> {
  const response = await options.fetch(
    new Request(options.url, {
      headers: {
        upgrade: "websocket",
        authorization: `Bearer ${options.secret}`,
        [EGRESS_TOKEN_HEADER]: options.token,
      },
    }),
  );
  const socket = (response as Response & { webSocket?: WebSocket | null }).webSocket;
  if (response.status !== 101 || !socket) {
    throw new Error(`egress channel refused: host answered ${response.status} ${await response.text()}`);
  }
  (socket as WebSocket & { accept(): void }).accept();
  return acceptWebSocketSession(socket, new Endpoint(options.handle));
}

class Endpoint extends RpcTarget implements EgressEndpoint {
  readonly #handle: (request: Request) => Promise<Response>;

  constructor(handle: (request: Request) => Promise<Response>) {
    super();
    this.#handle = handle;
  }

  async fetch(request: Request): Promise<Response> {
    return decodedBody(await this.#handle(request));
  }
}

/**
 * In workerd a response's body is its decoded content and `content-encoding`
 * says how to encode it on the wire (unless `encodeBody: "manual"`): a
 * gateway that returns what `fetch` gave it has a gunzipped body under a
 * gzip header. The host writes the body as it comes, so the header (and the
 * encoded length) must go, or the command would try to gunzip plain bytes.
 */
function decodedBody(response: Response): Response {
  const manual = (response as Response & { encodeBody?: string }).encodeBody === "manual";
  if (manual || !response.headers.has("content-encoding")) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

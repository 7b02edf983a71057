/**
 * Egress `http-gateway` for containers: every outbound HTTP(S) request of the
 * container is intercepted into a proxy that adds a per-backend token and the
 * original URL as headers and sends it to the Durable Object, which strips
 * both and hands the request to the configured gateway. A request without
 * the right token never reaches the gateway (404).
 */

import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "@cloudflare/computer-rpc";

export { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER };

export async function forwardToGateway(
  request: Request,
  gateway: { fetch(request: Request): Promise<Response> },
): Promise<Response> {
  const target = request.headers.get(EGRESS_URL_HEADER);
  let url: URL;
  try {
    url = new URL(target ?? "");
  } catch {
    return new Response("egress request without a valid URL\n", { status: 400 });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return new Response(`egress is HTTP(S) only; got ${url.protocol}\n`, { status: 400 });
  }
  const headers = new Headers(request.headers);
  headers.delete(EGRESS_TOKEN_HEADER);
  headers.delete(EGRESS_URL_HEADER);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return gateway.fetch(
    new Request(url, {
      method: request.method,
      headers,
      ...(hasBody ? { body: request.body } : {}),
      redirect: "manual",
    }),
  );
}

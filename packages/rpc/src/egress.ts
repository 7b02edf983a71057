/**
 * Egress `http-gateway` on the wire. A container's intercepted HTTP(S)
 * request reaches its Durable Object as a request to `/api` carrying two
 * headers: the per-backend token (proof that the interceptor, not some other
 * caller, sent it) and the original URL. On Cloudflare `WorkspaceProxy` adds
 * them; on the local container host the host does, and sends the request over
 * the egress channel the Durable Object opened (an `EgressEndpoint`).
 */
export const EGRESS_TOKEN_HEADER = "x-workspace-egress-token";
export const EGRESS_URL_HEADER = "x-workspace-egress-url";

/** What a Durable Object serves on its egress channel to the local container host. */
export interface EgressEndpoint {
  /** One intercepted request, already stamped with both egress headers; the object's answer comes back as is. */
  fetch(request: Request): Promise<Response>;
}

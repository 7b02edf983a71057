/**
 * The environment of a command in an egress `http-gateway` container: every
 * common HTTP client finds the proxy port (both spellings of the proxy
 * variables), and trusts the gateway CA next to the system roots, since the
 * host terminates TLS for CONNECT tunnels. Node's own `fetch` ignores the
 * proxy variables before Node 24, so node processes also preload
 * fetch-proxy.preload.cjs. The exec's own env still wins over all of this.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface EgressEnvOptions {
  /** The proxy port on the namespace's loopback. */
  port: number;
  /** The gateway CA certificate (PEM). */
  caCert: string;
  /** System roots plus the gateway CA (PEM). */
  caBundle: string;
  /** The fetch preload; default the built fetch-proxy.preload.cjs next to this module. */
  fetchProxy?: string;
}

export const FETCH_PROXY = fileURLToPath(new URL("./fetch-proxy.preload.cjs", import.meta.url));

export function egressEnv(options: EgressEnvOptions): Record<string, string> {
  const proxy = `http://127.0.0.1:${options.port}`;
  const preload = options.fetchProxy ?? FETCH_PROXY;
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    // Nothing is reachable without the proxy, not even the loopback: nothing may bypass it.
    NO_PROXY: "",
    no_proxy: "",
    SSL_CERT_FILE: options.caBundle,
    CURL_CA_BUNDLE: options.caBundle,
    GIT_SSL_CAINFO: options.caBundle,
    REQUESTS_CA_BUNDLE: options.caBundle,
    NODE_EXTRA_CA_CERTS: options.caCert,
    // Node 24+ reads the proxy variables itself when asked to.
    NODE_USE_ENV_PROXY: "1",
    // A bundled computerd (the container image) has no preload next to it, and no gateway either.
    ...(existsSync(preload) ? { NODE_OPTIONS: `--require ${JSON.stringify(preload)}` } : {}),
  };
}

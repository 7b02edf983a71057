/**
 * POST /connect: the reverse dial. The Durable Object cannot reach into the
 * container, so it asks the daemon to dial out: poll `base+health` until it
 * answers, close any earlier upstream socket (1000), then dial
 * `ws(s)://base+api` with the bearer and serve WorkspaceRPC on it.
 */
import WebSocket from "ws";

export const CONNECT_HEALTH_TIMEOUT_MS = 30_000;
/** The longest a caller may ask the health poll to last (docs/limits.md): a container boots in far less. */
export const MAX_CONNECT_HEALTH_TIMEOUT_MS = 120_000;
export const CONNECT_POLL_MS = 250;

export interface ConnectRequest {
  base: string;
  health: string;
  api: string;
  healthTimeoutMs: number;
}

/** The parsed body, or the reason it is not one (a 400). */
export function parseConnectBody(text: string): ConnectRequest | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "body must be JSON";
  }
  if (typeof body !== "object" || body === null) return "body must be a JSON object";
  const { base, health, api, healthTimeoutMs } = body as Record<string, unknown>;
  if (typeof base !== "string") return "base must be an http(s) URL";
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return "base must be an http(s) URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "base must be an http(s) URL";
  for (const [name, value] of [
    ["health", health],
    ["api", api],
  ] as const) {
    if (!isAbsolutePath(value)) return `${name} must be an absolute path such as /${name}`;
  }
  if (
    healthTimeoutMs !== undefined &&
    !(
      typeof healthTimeoutMs === "number" &&
      Number.isFinite(healthTimeoutMs) &&
      healthTimeoutMs >= 0 &&
      healthTimeoutMs <= MAX_CONNECT_HEALTH_TIMEOUT_MS
    )
  ) {
    return `healthTimeoutMs must be a number of milliseconds from 0 to ${MAX_CONNECT_HEALTH_TIMEOUT_MS}`;
  }
  return {
    base: base.replace(/\/+$/, ""),
    health: health as string,
    api: api as string,
    healthTimeoutMs: (healthTimeoutMs as number | undefined) ?? CONNECT_HEALTH_TIMEOUT_MS,
  };
}

/** `/x`, not `//host` (a protocol-relative URL) nor a full URL. */
function isAbsolutePath(value: unknown): value is string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !/[\s\\]/.test(value);
}

/** Polls the health URL; true once it answers 2xx within the timeout, false at the deadline or once `stop` aborts. */
export async function waitHealthy(url: string, timeoutMs: number, stop?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stop?.aborted) return false;
    const left = deadline - Date.now();
    try {
      const timeout = AbortSignal.timeout(Math.max(1, Math.min(2_000, left)));
      const response = await fetch(url, { signal: stop ? AbortSignal.any([timeout, stop]) : timeout });
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // Not up yet (refused, reset, timed out): poll again.
    }
    if (Date.now() + CONNECT_POLL_MS > deadline || stop?.aborted) return false;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stop?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_POLL_MS);
      stop?.addEventListener("abort", done);
    });
  }
}

export function upstreamUrl(request: ConnectRequest): string {
  return `${request.base.replace(/^http/, "ws")}${request.api}`;
}

export function dialUpstream(url: string, secret: string | undefined): WebSocket {
  return new WebSocket(url, {
    headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
    perMessageDeflate: false,
  });
}

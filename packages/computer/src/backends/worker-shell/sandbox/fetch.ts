/**
 * The `fetch` just-bash's `curl` calls. It is the Worker's own `fetch`, so
 * the Dynamic Worker's `globalOutbound` decides what it reaches: with egress
 * `none` every request fails, whatever curl was asked. No allow-list of
 * just-bash's own sits in front (it would refuse private addresses, which is
 * the gateway's business).
 */
import type { SecureFetch } from "just-bash";

export function workerFetch(fetcher: typeof fetch = fetch): SecureFetch {
  return async (url, options = {}) => {
    const init: RequestInit = {
      method: options.method ?? "GET",
      redirect: options.followRedirects === false ? "manual" : "follow",
    };
    if (options.headers !== undefined) init.headers = options.headers;
    if (options.body !== undefined) init.body = options.body;
    const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    if (signals.length > 0) init.signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const response = await fetcher(url, init);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return {
      status: response.status,
      statusText: response.statusText,
      headers,
      body: new Uint8Array(await response.arrayBuffer()),
      url: response.url || url,
    };
  };
}

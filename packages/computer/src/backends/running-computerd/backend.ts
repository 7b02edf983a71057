/**
 * `TestBackend({ url, id? })`, the original's: a command backend that talks
 * to a computerd you already run (a local `computerd`, `computerd host`'s
 * daemon, a container with its port published) instead of starting one.
 * `connect()` probes `GET <url>/health`, then opens a WorkspaceRPC session
 * over a WebSocket to `<url>/api` — computerd's endpoint for callers that
 * dial in, the same capnweb session the container backend runs after
 * computerd dials back. The runtime then drives it as any command backend:
 * push, exec, pull, the same bracket as in production.
 *
 * It does not authenticate: use it with a computerd started without
 * `RPC_CLIENT_SECRET` (a development or test daemon). It has no runtime id
 * of its own, so executions are not fenced across a daemon restart; the
 * original's does the same.
 */
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import type { ShellRpcLike } from "../../runtime/backend.js";
import type { HostedBackend, HostedBackendHandle } from "../../runtime/hosted-backend.js";

export interface TestBackendOptions {
  /** computerd's base URL: `http(s)://` or `ws(s)://`, e.g. `http://127.0.0.1:45678`. */
  url: string;
  /** Default `"test"`. */
  id?: string;
}

export class TestBackend implements HostedBackend {
  readonly type = "test";
  readonly id: string;
  readonly #http: string;
  readonly #ws: string;

  constructor(options: TestBackendOptions) {
    if (typeof options?.url !== "string") throw new TypeError("TestBackend: options.url must be computerd's URL");
    this.id = options.id ?? "test";
    const base = withoutTrailingSlash(options.url);
    this.#http = toScheme(base, "http");
    this.#ws = toScheme(base, "ws");
  }

  async connect(): Promise<HostedBackendHandle> {
    await this.#probeHealth();
    const client = await createWorkspaceClient({ url: `${this.#ws}/api` });
    return {
      // computer-rpc's shell is the wire's ShellRPC; the runtime reads it through its own narrower view.
      rpc: { sync: client.sync, shell: client.shell as unknown as ShellRpcLike },
      closed: client.closed.then(() => {}),
      close: () => client.close(),
    };
  }

  async #probeHealth(): Promise<void> {
    const url = `${this.#http}/health`;
    let response: Response;
    try {
      response = await fetch(url);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`TestBackend: ${url} is not reachable. Is computerd running? (${reason})`);
    }
    await response.body?.cancel();
    if (!response.ok) throw new Error(`TestBackend: ${url} answered ${response.status} ${response.statusText}`);
  }
}

function withoutTrailingSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}

/** The same URL under the HTTP or the WebSocket scheme (`https` ⇄ `wss`). */
function toScheme(url: string, family: "http" | "ws"): string {
  const match = /^(https?|wss?):\/\//.exec(url);
  if (!match) throw new TypeError(`TestBackend: unsupported URL scheme in ${url}`);
  const secure = (match[1] as string).endsWith("s");
  return `${family}${secure ? "s" : ""}://${url.slice(match[0].length)}`;
}

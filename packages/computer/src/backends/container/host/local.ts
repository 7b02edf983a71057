/**
 * `localContainer`: the container seam over the local container host
 * (`computerd host`), which runs each workspace's computerd as a process in
 * its own mount namespace with a real FUSE mount. It is what `wrangler dev`,
 * the examples and the tests use on machines without Docker — the backend on
 * top is unchanged.
 *
 * The host's API, all under `/v1/containers/<name>`:
 * - `GET` → `{ state, runtimeId?, exit? }`
 * - `POST /start` `{ env, enableInternet, runtimeId }` → `{ state, runtimeId }` (replaces a running one)
 * - `POST /stop`
 * - `* /port/<port>/<path>` → forwarded to that port of the container
 * - `GET /dial` (WebSocket): answered once computerd dials `<base>/api` with the
 *   bearer, then the two sockets are spliced; `<base>` is `/callback`.
 * - `GET /egress` (WebSocket, egress `http-gateway`): the channel the host
 *   sends the commands' intercepted HTTP(S) requests on (local-egress.ts).
 */
import {
  CONTAINER_STORAGE_KEYS,
  clientSecret,
  decideLaunch,
  egressOf,
  type LaunchStorage,
  recordExit,
  recordLaunch,
} from "./launch.js";
import { openEgressChannel } from "./local-egress.js";
import type { ContainerDial, ContainerExit, ContainerLaunch, ContainerStart, WorkspaceContainer } from "./types.js";

export interface LocalContainerOptions {
  /** The host's base URL, e.g. `http://127.0.0.1:45600` (from `COMPUTER_CONTAINER_HOST`). */
  url: string;
  /** One container per name: use the Durable Object's id (`ctx.id.toString()`). */
  name: string;
  /** The Durable Object's storage, for the secret, runtime id and launch record. */
  storage: LaunchStorage;
  /** The port computerd listens on inside the "container". Default 8080. */
  port?: number;
  /** How the DO reaches the host; default the global `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
}

interface HostState {
  state: "running" | "stopped";
  runtimeId?: string;
  exit?: ContainerExit;
}

export function localContainer(options: LocalContainerOptions): WorkspaceContainer {
  return new LocalContainer(options);
}

class LocalContainer implements WorkspaceContainer {
  readonly port: number;
  readonly #base: string;
  readonly #storage: LaunchStorage;
  readonly #fetch: (request: Request) => Promise<Response>;
  #handler: ((request: Request) => Promise<Response>) | undefined;
  #egress: { close(): Promise<void> } | undefined;

  constructor(options: LocalContainerOptions) {
    if (!/^https?:\/\//.test(options.url))
      throw new TypeError(`local container host url must be http(s); got ${options.url}`);
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(options.name)) {
      throw new TypeError("local container name must be 1–128 characters of A–Z a–z 0–9 . _ -");
    }
    this.port = options.port ?? 8080;
    this.#base = `${options.url.replace(/\/+$/, "")}/v1/containers/${options.name}`;
    this.#storage = options.storage;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
  }

  async start(launch: ContainerLaunch): Promise<ContainerStart> {
    const host = await this.#state();
    const stored = await this.#storage.get<string>(CONTAINER_STORAGE_KEYS.runtimeIdentity);
    // Running under a runtime id we do not know (a host restarted by hand) is not ours to adopt.
    const running = host.state === "running" && host.runtimeId !== undefined && host.runtimeId === stored;
    const decision = await decideLaunch(this.#storage, running, launch);
    if (decision.action === "adopt") return { status: "adopted", runtimeId: decision.runtimeId };
    const runtimeId = await this.#launch(launch);
    return { status: host.state === "running" ? "relaunched" : "launched", runtimeId };
  }

  async restart(launch: ContainerLaunch): Promise<ContainerStart> {
    return { status: "relaunched", runtimeId: await this.#launch(launch) };
  }

  async status(): Promise<"running" | "stopped"> {
    return (await this.#state()).state;
  }

  async exitInfo(): Promise<ContainerExit | undefined> {
    const host = await this.#state();
    if (host.exit?.runtimeId !== undefined) await recordExit(this.#storage, host.exit.runtimeId);
    return host.exit;
  }

  async fetchPort(port: number, request: Request): Promise<Response> {
    const url = new URL(request.url);
    const target = `${this.#base}/port/${port}${url.pathname}${url.search}`;
    const response = await this.#fetch(new Request(target, request));
    if (response.status === 410) {
      // The host answers {error, code}; an older host, plain text.
      const text = await response.text();
      let reason = text;
      try {
        reason = String((JSON.parse(text) as { error?: unknown }).error ?? text);
      } catch {}
      throw new Error(`container exited: ${reason}`);
    }
    return response;
  }

  async setInactivityTimeout(_ms: number): Promise<void> {
    // Local processes stay until the host stops: there is no per-second bill to save.
  }

  async interceptOutboundHttp(_host: string): Promise<void> {
    // The dial-back goes through the host (see `dial`), so there is nothing to intercept.
  }

  /**
   * Opens (or reopens, at every connect) the egress channel: a new backend
   * instance — a restarted Durable Object — has a new token, and the host
   * replaces the older channel with this one.
   */
  async interceptAllOutboundHttp(token: string): Promise<void> {
    const previous = this.#egress;
    this.#egress = undefined;
    await previous?.close();
    this.#egress = await openEgressChannel({
      url: `${this.#base}/egress`,
      token,
      secret: await this.secret(),
      fetch: this.#fetch,
      handle: (request) =>
        this.#handler
          ? this.#handler(request)
          : Promise.resolve(new Response("no container backend is connected\n", { status: 404 })),
    });
  }

  serve(handler: (request: Request) => Promise<Response>): void {
    this.#handler = handler;
  }

  secret(): Promise<string> {
    return clientSecret(this.#storage);
  }

  dial(): ContainerDial {
    return {
      base: `${this.#base}/callback`,
      accept: async (timeoutMs) => {
        const response = await this.#fetch(
          new Request(`${this.#base}/dial`, {
            headers: { upgrade: "websocket", "x-dial-timeout-ms": String(timeoutMs) },
          }),
        );
        const socket = (response as Response & { webSocket?: WebSocket | null }).webSocket;
        if (response.status !== 101 || !socket) {
          throw new Error(`dial-back failed: host answered ${response.status} ${await response.text()}`);
        }
        (socket as WebSocket & { accept(): void }).accept();
        return socket;
      },
    };
  }

  async #launch(launch: ContainerLaunch): Promise<string> {
    const runtimeId = await recordLaunch(this.#storage, launch);
    const response = await this.#fetch(
      new Request(`${this.#base}/start`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          env: launch.env,
          enableInternet: launch.enableInternet,
          egress: egressOf(launch),
          runtimeId,
        }),
      }),
    );
    if (!response.ok)
      throw new Error(`local container host: start answered ${response.status} ${await response.text()}`);
    await response.body?.cancel();
    return runtimeId;
  }

  async #state(): Promise<HostState> {
    const response = await this.#fetch(new Request(this.#base));
    if (!response.ok) throw new Error(`local container host answered ${response.status} ${await response.text()}`);
    return (await response.json()) as HostState;
  }
}

/**
 * The container seam on Cloudflare: `ctx.container` (the platform's container
 * API) behind `WorkspaceContainer`, with the launch record in DO storage
 * so a new Durable Object incarnation adopts the container that still runs.
 * Each launch gets a monitor; a stale monitor (of an earlier generation)
 * cannot overwrite newer state.
 *
 * The container reaches the Durable Object through outbound interception:
 * its HTTP to the egress host (and, in `http-gateway` mode, all of its
 * HTTP(S)) goes to `WorkspaceProxy`, a WorkerEntrypoint the host re-exports,
 * which calls the object's `__handleContainerFetch`.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "./egress.js";
import { clientSecret, decideLaunch, type LaunchStorage, recordExit, recordLaunch } from "./launch.js";
import type { ContainerExit, ContainerLaunch, ContainerStart, WorkspaceContainer, WorkspaceRef } from "./types.js";

/** The slice of `ctx.container` used here (what tests fake). */
export interface PlatformContainer {
  readonly running: boolean;
  start(options?: { env?: Record<string, string>; enableInternet?: boolean }): void;
  monitor(): Promise<void>;
  destroy(error?: unknown): Promise<void>;
  getTcpPort(port: number): { fetch(request: Request): Promise<Response> };
  setInactivityTimeout(durationMs: number): Promise<void>;
  interceptOutboundHttp(addr: string, binding: Fetcher): Promise<void>;
  interceptAllOutboundHttp(binding: Fetcher): Promise<void>;
  /** HTTPS by host (`"*"` for all); absent on a workerd that predates it. */
  interceptOutboundHttps?(addr: string, binding: Fetcher): Promise<void>;
}

export interface PlatformContainerOptions {
  container: PlatformContainer;
  storage: LaunchStorage;
  port?: number;
  /**
   * Builds the Fetcher outbound interception sends to: normally
   * `ctx.exports.WorkspaceProxy({ props: { binding, id, egressToken? } })`.
   * `workspace` is the backend's `workspace` option, when it gave one.
   */
  proxy(props: { egressToken?: string }, workspace: WorkspaceRef | undefined): Fetcher;
}

const EXIT_KEY = "computer:container-exit";

export class CloudflarePlatformContainer implements WorkspaceContainer {
  readonly port: number;
  readonly #options: PlatformContainerOptions;
  /** Bumped per launch: a monitor only records the exit of its own generation. */
  #generation = 0;
  #handler: ((request: Request) => Promise<Response>) | undefined;
  #workspace: WorkspaceRef | undefined;

  constructor(options: PlatformContainerOptions) {
    this.#options = options;
    this.port = options.port ?? 8080;
  }

  useWorkspace(ref: WorkspaceRef): void {
    this.#workspace = ref;
  }

  async start(launch: ContainerLaunch): Promise<ContainerStart> {
    const { container, storage } = this.#options;
    const decision = await decideLaunch(storage, container.running, launch);
    if (decision.action === "adopt") {
      this.#watch(decision.runtimeId);
      return { status: "adopted", runtimeId: decision.runtimeId };
    }
    if (decision.action === "relaunch") await container.destroy().catch(() => {});
    const runtimeId = await this.#launch(launch);
    return { status: decision.action === "relaunch" ? "relaunched" : "launched", runtimeId };
  }

  async restart(launch: ContainerLaunch): Promise<ContainerStart> {
    if (this.#options.container.running) await this.#options.container.destroy().catch(() => {});
    return { status: "relaunched", runtimeId: await this.#launch(launch) };
  }

  async status(): Promise<"running" | "stopped"> {
    return this.#options.container.running ? "running" : "stopped";
  }

  async exitInfo(): Promise<ContainerExit | undefined> {
    return this.#options.storage.get<ContainerExit>(EXIT_KEY);
  }

  async fetchPort(port: number, request: Request): Promise<Response> {
    if (!this.#options.container.running) {
      const exit = await this.exitInfo();
      throw new Error(`container exited: ${exit ? (exit.exitCode ?? exit.signal ?? "unknown") : "not running"}`);
    }
    return this.#options.container.getTcpPort(port).fetch(request);
  }

  tcpPort(port: number): Fetcher {
    // workerd's getTcpPort() is a full Fetcher (fetch and connect); the interface above names only what tests fake.
    return this.#options.container.getTcpPort(port) as Fetcher;
  }

  setInactivityTimeout(ms: number): Promise<void> {
    return this.#options.container.setInactivityTimeout(ms);
  }

  async interceptOutboundHttp(host: string): Promise<void> {
    return this.#options.container.interceptOutboundHttp(host, this.#options.proxy({}, this.#workspace));
  }

  async interceptAllOutboundHttp(token: string): Promise<void> {
    // The token travels in the proxy's props; the backend checks it in handleFetch.
    const proxy = this.#options.proxy({ egressToken: token }, this.#workspace);
    const { container } = this.#options;
    // HTTPS too, as the original does, so gateway mode covers every request the commands make.
    await Promise.all([container.interceptAllOutboundHttp(proxy), container.interceptOutboundHttps?.("*", proxy)]);
  }

  serve(handler: (request: Request) => Promise<Response>): void {
    this.#handler = handler;
  }

  /** A request the container sent through `WorkspaceProxy`. */
  dispatch(request: Request): Promise<Response> {
    if (!this.#handler) return Promise.resolve(new Response("no container backend is connected\n", { status: 404 }));
    return this.#handler(request);
  }

  secret(): Promise<string> {
    return clientSecret(this.#options.storage);
  }

  async #launch(launch: ContainerLaunch): Promise<string> {
    const runtimeId = await recordLaunch(this.#options.storage, launch);
    this.#options.container.start({ env: launch.env, enableInternet: launch.enableInternet });
    this.#watch(runtimeId);
    return runtimeId;
  }

  #watch(runtimeId: string): void {
    const generation = ++this.#generation;
    const { container, storage } = this.#options;
    const ended = (exitCode: number | null, message?: string): Promise<void> =>
      generation !== this.#generation
        ? Promise.resolve()
        : storage
            .put<ContainerExit>(EXIT_KEY, { runtimeId, exitCode, at: Date.now(), ...(message ? { message } : {}) })
            .then(() => recordExit(storage, runtimeId));
    container.monitor().then(
      () => ended(0),
      (error: unknown) => ended(exitCodeOf(error), error instanceof Error ? error.message : String(error)),
    );
  }
}

function exitCodeOf(error: unknown): number | null {
  const code = (error as { exitCode?: unknown } | undefined)?.exitCode;
  return typeof code === "number" ? code : null;
}

/** What a Durable Object exposes for `WorkspaceProxy` to call. */
export interface ContainerFetchTarget {
  __handleContainerFetch(request: Request): Promise<Response>;
}

export interface WorkspaceProxyProps {
  /** The Durable Object namespace binding of the workspace object. */
  binding: string;
  /** `ctx.id.toString()` of the workspace object. */
  id: string;
  /** Set for the egress gateway interception: each request is wrapped with the egress headers. */
  egressToken?: string;
}

/**
 * Where a container's intercepted HTTP lands. For the dial-back the request
 * goes to the workspace object as is; for gateway egress it is rewritten to
 * `/api` with the original URL in a header, and the object's backend checks
 * the token before anything reaches the gateway.
 */
// `env` is `unknown`, as in the original: the entrypoint is re-exported from the user's Worker, whose
// Env type it cannot know; the binding is looked up by name from the props.
export class WorkspaceProxy extends WorkerEntrypoint<unknown, WorkspaceProxyProps> {
  override async fetch(request: Request): Promise<Response> {
    const { binding, id, egressToken: token } = this.ctx.props;
    const env = this.env as Record<string, unknown> | null | undefined;
    const namespace = env?.[binding] as DurableObjectNamespace | undefined;
    if (!namespace) return new Response(`WorkspaceProxy: no binding ${binding}\n`, { status: 500 });
    const target = namespace.get(namespace.idFromString(id)) as unknown as ContainerFetchTarget;
    if (token === undefined) return target.__handleContainerFetch(request);
    const headers = new Headers(request.headers);
    headers.set(EGRESS_TOKEN_HEADER, token);
    headers.set(EGRESS_URL_HEADER, request.url);
    return target.__handleContainerFetch(
      new Request("http://computer.internal/api", { ...requestInit(request), headers }),
    );
  }
}

function requestInit(request: Request): RequestInit {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return { method: request.method, ...(hasBody ? { body: request.body } : {}) };
}

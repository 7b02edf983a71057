/**
 * The original's container API: `IWorkspaceContainerAPI` (what
 * `getWorkspaceContainer()` returns) and `WorkspaceContainerAPI`, the
 * `RpcTarget` class `withWorkspaceContainer` hands out. Ours wraps the
 * container seam (`WorkspaceContainer`, types.ts) — Cloudflare's container
 * or the local container host — so the backend keeps its launch records,
 * secret and dial-back, and code written against the original's methods
 * (`start(env, enableInternet)`, `status()`, `port(n)`, …) works on the same
 * container.
 *
 * The other way round, `containerFromAPI` drives an object that implements
 * only the original's interface (a hand-written container host) as a seam.
 */
import { RpcTarget } from "cloudflare:workers";
import { CloudflarePlatformContainer, type PlatformContainer, type WorkspaceProxyProps } from "./platform.worker.js";
import type { ContainerExit, ContainerStart, WorkspaceContainer, WorkspaceRef } from "./types.js";

export interface ContainerRuntimeInfo {
  runtimeId: string;
}

/** How the container last ended. `reason` is the exit code or signal, or the platform's message. */
export interface ContainerExitInfo {
  /** Epoch ms. */
  exitedAt: number;
  reason: string;
}

/** The original's container API, method for method. */
export interface IWorkspaceContainerAPI {
  start(env: Record<string, string>, enableInternet: boolean): Promise<ContainerRuntimeInfo>;
  interceptOutboundHttp(host: string, workspace: WorkspaceRef): Promise<void>;
  interceptAllOutboundHttp(workspace: WorkspaceRef, token: string): Promise<void>;
  fetchPort(port: number, input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  port(port: number): Fetcher;
  restart(env: Record<string, string>, enableInternet: boolean): Promise<ContainerRuntimeInfo>;
  status(): Promise<{ running: boolean; exit: ContainerExitInfo | null }>;
  exitInfo(): Promise<ContainerExitInfo | null>;
}

/** The seam behind each `WorkspaceContainerAPI`, for the backend (not a public member: it is not the original's). */
const seams = new WeakMap<object, WorkspaceContainer>();

/** The seam a `WorkspaceContainerAPI` wraps, or `undefined` for anything else. */
export function seamOf(value: object): WorkspaceContainer | undefined {
  return seams.get(value);
}

export class WorkspaceContainerAPI extends RpcTarget implements IWorkspaceContainerAPI {
  readonly #container: WorkspaceContainer;

  /**
   * `new WorkspaceContainerAPI(ctx)` is the original's form: Cloudflare's
   * container of this Durable Object (`ctx.container`). `withWorkspaceContainer`
   * passes the seam it chose (the local container host under
   * `COMPUTER_CONTAINER_HOST`).
   */
  constructor(ctx: DurableObjectState, container?: WorkspaceContainer) {
    super();
    this.#container = container ?? platformContainer(ctx, {});
    seams.set(this, this.#container);
  }

  async start(env: Record<string, string>, enableInternet: boolean): Promise<ContainerRuntimeInfo> {
    return runtimeInfo(await this.#container.start({ env, enableInternet }));
  }

  async restart(env: Record<string, string>, enableInternet: boolean): Promise<ContainerRuntimeInfo> {
    return runtimeInfo(await this.#container.restart({ env, enableInternet }));
  }

  async status(): Promise<{ running: boolean; exit: ContainerExitInfo | null }> {
    const [state, exit] = await Promise.all([this.#container.status(), this.exitInfo()]);
    return { running: state === "running", exit };
  }

  async exitInfo(): Promise<ContainerExitInfo | null> {
    const exit = await this.#container.exitInfo();
    return exit === undefined ? null : exitInfoOf(exit);
  }

  async interceptOutboundHttp(host: string, workspace?: WorkspaceRef): Promise<void> {
    if (workspace !== undefined) this.#container.useWorkspace?.(workspace);
    await this.#container.interceptOutboundHttp(host);
  }

  async interceptAllOutboundHttp(workspace: WorkspaceRef, token: string): Promise<void> {
    this.#container.useWorkspace?.(workspace);
    await this.#container.interceptAllOutboundHttp(token);
  }

  fetchPort(port: number, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    return this.#container.fetchPort(port, new Request(input, init));
  }

  /**
   * A Fetcher for one port of the container: the platform's own on
   * Cloudflare (`fetch` and `connect`); elsewhere one whose `fetch` goes
   * through `fetchPort` and whose `connect` throws.
   */
  port(port: number): Fetcher {
    const own = this.#container.tcpPort?.(port);
    if (own) return own as unknown as Fetcher;
    const fetchPort = (input: RequestInfo | URL, init?: RequestInit) => this.fetchPort(port, input, init);
    return {
      fetch: fetchPort,
      connect(): never {
        throw new TypeError(`WorkspaceContainerAPI.port(${port}).connect: raw TCP to the container is not supported`);
      },
    } as unknown as Fetcher;
  }
}

function runtimeInfo(start: ContainerStart): ContainerRuntimeInfo {
  return { runtimeId: start.runtimeId };
}

export function exitInfoOf(exit: ContainerExit): ContainerExitInfo {
  const reason =
    exit.message ??
    (exit.exitCode !== null ? `exit code ${exit.exitCode}` : exit.signal ? `signal ${exit.signal}` : "unknown");
  return { exitedAt: exit.at, reason };
}

/** Cloudflare's container of a Durable Object (`ctx.container`) as a seam. */
export function platformContainer(
  ctx: DurableObjectState,
  options: { binding?: string; port?: number },
): CloudflarePlatformContainer {
  const container = (ctx as unknown as { container?: PlatformContainer }).container;
  if (!container) {
    throw new Error(
      `This Durable Object has no container: add a "containers" entry for it in wrangler config, ` +
        "or set COMPUTER_CONTAINER_HOST to a local container host (computerd host)",
    );
  }
  const exports = (ctx as unknown as { exports?: Record<string, (init: { props: WorkspaceProxyProps }) => Fetcher> })
    .exports;
  return new CloudflarePlatformContainer({
    container,
    storage: ctx.storage,
    ...(options.port === undefined ? {} : { port: options.port }),
    proxy: (props, workspace) => {
      const make = exports?.WorkspaceProxy;
      if (!make)
        throw new Error(
          "re-export WorkspaceProxy from your Worker's main module so the container can reach this object",
        );
      const binding = workspace?.binding ?? options.binding;
      if (binding === undefined) {
        throw new TypeError(
          "WorkspaceProxy needs this object's binding: pass workspace: { binding, id } to CloudflareContainerBackend " +
            "(or withWorkspaceContainer(Base, { binding }))",
        );
      }
      return make({ props: { binding, id: workspace?.id ?? ctx.id.toString(), ...props } });
    },
  });
}

/**
 * An object with only the original's methods, driven as a seam. It has no
 * storage of its own, so the bearer secret is this adapter's (random, for
 * its lifetime): its first start replaces whatever runs, since a container
 * launched before was given another secret; later starts adopt.
 */
export function containerFromAPI(
  api: IWorkspaceContainerAPI,
  options: { workspace: WorkspaceRef | undefined; port: number },
): WorkspaceContainer {
  const secret = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  let started = false;
  const workspace = (): WorkspaceRef => {
    if (options.workspace === undefined) {
      throw new TypeError("CloudflareContainerBackend needs workspace: { binding, id } for this container API");
    }
    return options.workspace;
  };
  return {
    port: options.port,
    async start(launch) {
      const fresh = !started;
      started = true;
      const info = fresh
        ? await api.restart(launch.env, launch.enableInternet)
        : await api.start(launch.env, launch.enableInternet);
      return { status: fresh ? "launched" : "adopted", runtimeId: info.runtimeId };
    },
    async restart(launch) {
      started = true;
      return { status: "relaunched", runtimeId: (await api.restart(launch.env, launch.enableInternet)).runtimeId };
    },
    async status() {
      return (await api.status()).running ? "running" : "stopped";
    },
    async exitInfo() {
      const exit = await api.exitInfo();
      return exit === null ? undefined : { exitCode: null, at: exit.exitedAt, message: exit.reason };
    },
    fetchPort: (port, request) => api.fetchPort(port, request),
    async setInactivityTimeout() {},
    interceptOutboundHttp: async (host) => api.interceptOutboundHttp(host, workspace()),
    interceptAllOutboundHttp: async (token) => api.interceptAllOutboundHttp(workspace(), token),
    secret: async () => secret,
  };
}

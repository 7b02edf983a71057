/**
 * The container seam: what `CloudflareContainerBackend` needs from "a Linux
 * container running computerd". Two implementations stand behind it —
 * Cloudflare's containers (`withWorkspaceContainer`) and the local container
 * host that runs computerd as a plain process with a real FUSE mount
 * (`localContainer`) — chosen by configuration, so the backend and the user's
 * code are the same in production, in `wrangler dev` and in tests.
 */

/** Where a container's outbound HTTP goes. */
export type WorkspaceEgressPolicy =
  | { mode: "none" }
  | { mode: "direct" }
  | {
      mode: "http-gateway";
      /** Receives every outbound HTTP(S) request, with the original URL, method and body. */
      gateway: { fetch(request: Request): Promise<Response> };
      /** Distinguishes gateway configurations (the worker-shell loader id uses it). */
      revision?: string;
    };

export type EgressMode = WorkspaceEgressPolicy["mode"];

export interface ContainerLaunch {
  /** The container's environment, `RPC_CLIENT_SECRET` included. */
  env: Record<string, string>;
  enableInternet: boolean;
  /**
   * The egress mode the container is launched for. Cloudflare's container
   * only needs `enableInternet` (interception is set up after the start);
   * the local container host builds the commands' network around it at
   * start, so a container launched for one mode is never adopted for another.
   * Default: `direct` with `enableInternet`, else `none`.
   */
  egress?: EgressMode;
}

export type ContainerStartStatus = "launched" | "adopted" | "relaunched";

export interface ContainerStart {
  status: ContainerStartStatus;
  /** The durable id of the running process: kept when adopted, new when (re)launched. */
  runtimeId: string;
}

export interface ContainerExit {
  runtimeId?: string;
  exitCode: number | null;
  signal?: string;
  /** Epoch ms. */
  at: number;
  message?: string;
}

/**
 * For containers that deliver computerd's dial-back themselves (the local
 * host splices it onto a socket the Durable Object opened). Cloudflare's
 * containers have none: the dial-back arrives through outbound interception
 * at the DO's `fetch`, which hands it to `backend.handleFetch`.
 */
export interface ContainerDial {
  /** The `base` computerd polls and dials (`base + health`, `base + api`). */
  base: string;
  /** Resolves with the socket computerd dialled, already authenticated by the host. */
  accept(timeoutMs: number): Promise<WebSocket>;
}

/** A workspace Durable Object by binding name and id (`ctx.id.toString()`). */
export interface WorkspaceRef {
  binding: string;
  id: string;
}

export interface WorkspaceContainer {
  /** The port computerd listens on inside the container. */
  readonly port: number;
  /** The backend's `workspace` option: which object `WorkspaceProxy` routes the container's requests to. */
  useWorkspace?(ref: WorkspaceRef): void;
  /** Starts computerd unless the running one matches the launch record (then it is adopted). */
  start(launch: ContainerLaunch): Promise<ContainerStart>;
  /** Replaces the running container: always a new runtime id. */
  restart(launch: ContainerLaunch): Promise<ContainerStart>;
  status(): Promise<"running" | "stopped">;
  /** How the last container of this Durable Object ended, if one did. */
  exitInfo(): Promise<ContainerExit | undefined>;
  /** An HTTP request to a port of the running container. Throws `container exited: …` after an exit. */
  fetchPort(port: number, request: Request): Promise<Response>;
  setInactivityTimeout(ms: number): Promise<void>;
  /** Routes the container's HTTP to `host` into the Durable Object (the dial-back, the gateway proxy). */
  interceptOutboundHttp(host: string): Promise<void>;
  /**
   * Routes all of the container's HTTP(S) into the Durable Object (egress
   * `http-gateway`), each request marked with `token` so the backend can tell
   * it from anything else that reaches the object.
   */
  interceptAllOutboundHttp(token: string): Promise<void>;
  /**
   * The platform's own Fetcher for a port (with `connect`), where there is
   * one (Cloudflare's container). Typed by its `fetch` only: this file is
   * runtime-neutral, and workers-types' `Fetcher` exists only in workerd.
   */
  tcpPort?(port: number): { fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> };
  /** The bearer secret computerd was launched with (16 random bytes, hex), kept in DO storage. */
  secret(): Promise<string>;
  dial?(): ContainerDial;
  /**
   * For containers whose traffic reaches the Durable Object's own entry point
   * (Cloudflare's outbound interception): the backend registers the handler
   * for the dial-back and gateway requests here.
   */
  serve?(handler: (request: Request) => Promise<Response>): void;
}

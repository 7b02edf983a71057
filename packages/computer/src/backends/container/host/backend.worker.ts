/**
 * `CloudflareContainerBackend` (`container-shell`): a command backend whose
 * runtime is computerd in a container. It supplies only the transport — a
 * capnweb session over the socket computerd dials back — and the runtime
 * (docs/runtime.md) does the rest: bracket, fencing, reconnect, retries.
 *
 * The Durable Object is the WebSocket server: `connect()` arms an upgrade
 * slot, asks computerd to dial back, and the dial-back reaches the DO's
 * `fetch`, which must hand it to `handleFetch`. The same entry point serves
 * the container's egress gateway requests — through `WorkspaceProxy` on
 * Cloudflare, through the egress channel on the local container host.
 */
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import type { BackendContext, BackendHandle, CommandBackend, ShellRpcLike } from "../../../runtime/backend.js";
import { isTransportError } from "../../../runtime/transport.js";
import { connectContainer, PROBE_BACKOFF_MS, PROBE_TIMEOUT_MS } from "./connect.js";
import { containerFromAPI, type IWorkspaceContainerAPI, seamOf } from "./container-api.worker.js";
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER, forwardToGateway } from "./egress.js";
import { SECRET_ENV } from "./launch.js";
import type { WorkspaceContainer, WorkspaceEgressPolicy, WorkspaceRef } from "./types.js";

export const CONTAINER_BACKEND_DEFAULTS = {
  id: "container-shell",
  egressHost: "computer.internal",
  port: 8080,
  connectTimeoutMs: 30_000,
  heartbeatIntervalMs: 20_000,
  restartAttempts: 1,
} as const;

/**
 * What the original's `container` option returns: the object with
 * `getWorkspaceContainer()` (a `withWorkspaceContainer` DO). It may give
 * our `WorkspaceContainerAPI`, any object with the original's methods, or a
 * container seam of ours.
 */
export interface ContainerHostHolder {
  getWorkspaceContainer():
    | IWorkspaceContainerAPI
    | WorkspaceContainer
    | Promise<IWorkspaceContainerAPI | WorkspaceContainer>;
}

/** What `container()` may return. */
export type ContainerSource = WorkspaceContainer | IWorkspaceContainerAPI | ContainerHostHolder;

export interface CloudflareContainerBackendOptions {
  /**
   * The container: `() => this` (or `() => this.getWorkspaceContainer()`) in a
   * `withWorkspaceContainer` DO, `() => localContainer(...)`, or an object with the
   * original's `IWorkspaceContainerAPI` methods.
   */
  container: () => ContainerSource | Promise<ContainerSource>;
  /**
   * This object's Durable Object binding and id (`{ binding: "AGENT", id: ctx.id.toString() }`), for
   * `WorkspaceProxy` to find it; needed unless `withWorkspaceContainer(Base, { binding })` named it.
   */
  workspace?: WorkspaceRef;
  id?: string;
  /** The hostname computerd dials back to; outbound interception routes it into the DO. */
  egressHost?: string;
  /** The port computerd listens on in the container; default the container's (8080). */
  containerPort?: number;
  /** The earlier name of `containerPort`. */
  port?: number;
  /** One `/health` probe's timeout (default 2000 ms). */
  healthProbeTimeoutMs?: number;
  /** The backoff between `/health` probes: first delay (250 ms), doubling up to the max (2000 ms). */
  healthRetryInitialDelayMs?: number;
  healthRetryMaxDelayMs?: number;
  connectTimeoutMs?: number;
  /** `sync.watermarks()` every this many ms; 0 turns the heartbeat off. */
  heartbeatIntervalMs?: number;
  restartAttempts?: number;
  /** Extra environment for the container (`PORT` and `MOUNT_POINT` are set for you). */
  containerEnv?: Record<string, string>;
  egress?: WorkspaceEgressPolicy;
}

interface UpgradeSlot {
  resolve(socket: WebSocket): void;
  reject(error: Error): void;
}

export class CloudflareContainerBackend implements CommandBackend {
  readonly kind = "command";
  readonly type = "cloudflare-container";
  readonly id: string;
  readonly egress: WorkspaceEgressPolicy;
  readonly #options: CloudflareContainerBackendOptions;
  readonly #settings: {
    egressHost: string;
    port: number | undefined;
    probe: { timeoutMs: number; initialDelayMs: number; maxDelayMs: number };
    connectTimeoutMs: number;
    heartbeatIntervalMs: number;
    restartAttempts: number;
  };
  /** Random per backend instance: the proxy proves a gateway request came from our container. */
  readonly #egressToken = crypto.randomUUID();
  #slot: UpgradeSlot | undefined;
  #secret: string | undefined;
  readonly #adopted = new WeakMap<IWorkspaceContainerAPI, WorkspaceContainer>();

  constructor(options: CloudflareContainerBackendOptions) {
    if (typeof options?.container !== "function") {
      throw new TypeError("CloudflareContainerBackend needs container: () => WorkspaceContainer");
    }
    this.#options = options;
    this.id = options.id ?? CONTAINER_BACKEND_DEFAULTS.id;
    this.egress = options.egress ?? { mode: "none" };
    this.#settings = {
      egressHost: options.egressHost ?? CONTAINER_BACKEND_DEFAULTS.egressHost,
      port: optionalPort(options.containerPort ?? options.port),
      probe: {
        timeoutMs: checkMs("healthProbeTimeoutMs", options.healthProbeTimeoutMs, PROBE_TIMEOUT_MS),
        initialDelayMs: checkMs(
          "healthRetryInitialDelayMs",
          options.healthRetryInitialDelayMs,
          PROBE_BACKOFF_MS.initial,
          true,
        ),
        maxDelayMs: checkMs("healthRetryMaxDelayMs", options.healthRetryMaxDelayMs, PROBE_BACKOFF_MS.max, true),
      },
      connectTimeoutMs: checkMs(
        "connectTimeoutMs",
        options.connectTimeoutMs,
        CONTAINER_BACKEND_DEFAULTS.connectTimeoutMs,
      ),
      heartbeatIntervalMs: checkMs(
        "heartbeatIntervalMs",
        options.heartbeatIntervalMs,
        CONTAINER_BACKEND_DEFAULTS.heartbeatIntervalMs,
        true,
      ),
      restartAttempts: checkMs(
        "restartAttempts",
        options.restartAttempts,
        CONTAINER_BACKEND_DEFAULTS.restartAttempts,
        true,
      ),
    };
  }

  attach(_context: BackendContext): void {}

  isTransportError(error: unknown): boolean {
    return isTransportError(error);
  }

  async connect(): Promise<BackendHandle> {
    const container = await this.#container();
    container.serve?.((request) => this.handleFetch(request));
    const port = this.#settings.port ?? container.port;
    const secret = await container.secret();
    this.#secret = secret;
    const dial = container.dial?.();
    const launch = {
      env: {
        PORT: String(port),
        MOUNT_POINT: "/workspace",
        ...this.#options.containerEnv,
        [SECRET_ENV]: secret,
      },
      enableInternet: this.egress.mode === "direct",
      egress: this.egress.mode,
    };
    const connected = await connectContainer({
      backendId: this.id,
      container,
      launch,
      port,
      probe: this.#settings.probe,
      connectTimeoutMs: this.#settings.connectTimeoutMs,
      restartAttempts: this.#settings.restartAttempts,
      egress: async (target) => {
        // A container that delivers the dial-back itself (the local host) treats the first call as a no-op.
        await target.interceptOutboundHttp(this.#settings.egressHost);
        if (this.egress.mode === "http-gateway") await target.interceptAllOutboundHttp(this.#egressToken);
      },
      arm: () => (dial ? armDial(dial, this.#settings.connectTimeoutMs) : this.#armSlot()),
      dialBase: dial ? dial.base : `http://${this.#settings.egressHost}`,
      secret,
    });
    return this.#open(connected.socket, connected.runtimeId);
  }

  /** The container seam, from whichever form `container` returned; tells it this object's binding when given. */
  async #container(): Promise<WorkspaceContainer> {
    const given = await this.#options.container();
    const api = isHolder(given) ? await given.getWorkspaceContainer() : given;
    const container = seamOf(api) ?? (isOriginalAPI(api) ? this.#adopt(api) : api);
    if (this.#options.workspace !== undefined) container.useWorkspace?.(this.#options.workspace);
    return container;
  }

  /** One seam per foreign container API object, so its secret lasts as long as this backend. */
  #adopt(api: IWorkspaceContainerAPI): WorkspaceContainer {
    let seam = this.#adopted.get(api);
    if (!seam) {
      seam = containerFromAPI(api, {
        workspace: this.#options.workspace,
        port: this.#settings.port ?? CONTAINER_BACKEND_DEFAULTS.port,
      });
      this.#adopted.set(api, seam);
    }
    return seam;
  }

  /**
   * The DO's `fetch` hands every request from the container here: computerd's
   * dial-back (`/api` upgrade) and, in `http-gateway` mode, proxied egress.
   * Order: egress token → gateway; other path → 404; no upgrade → 400; bad
   * bearer → 401; no connect waiting → 409; else 101.
   */
  async handleFetch(request: Request): Promise<Response> {
    const token = request.headers.get(EGRESS_TOKEN_HEADER);
    if (token !== null) {
      if (this.egress.mode !== "http-gateway" || !timingSafeEqual(token, this.#egressToken)) {
        return new Response("not found\n", { status: 404 });
      }
      return forwardToGateway(request, this.egress.gateway);
    }
    const url = new URL(request.url);
    if (url.pathname !== "/api") return new Response("not found\n", { status: 404 });
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade\n", { status: 400 });
    }
    if (!this.#secret || !bearerMatches(request.headers.get("authorization"), this.#secret)) {
      return new Response("unauthorized\n", { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    const slot = this.#slot;
    if (!slot) return new Response("no connect is waiting for this socket\n", { status: 409 });
    this.#slot = undefined;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    server.accept();
    slot.resolve(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The headers the egress proxy adds, for hosts that forward intercepted requests here. */
  egressHeaders(url: string): Record<string, string> {
    return { [EGRESS_TOKEN_HEADER]: this.#egressToken, [EGRESS_URL_HEADER]: url };
  }

  #armSlot(): { socket: Promise<WebSocket>; disarm(reason: Error): void } {
    this.#slot?.reject(new Error("superseded by a newer connect"));
    let slot!: UpgradeSlot;
    const socket = new Promise<WebSocket>((resolve, reject) => {
      slot = { resolve, reject };
    });
    socket.catch(() => {});
    this.#slot = slot;
    return {
      socket,
      disarm: (reason) => {
        if (this.#slot === slot) this.#slot = undefined;
        slot.reject(reason);
      },
    };
  }

  async #open(socket: WebSocket, runtimeId: string): Promise<BackendHandle> {
    const client = await createWorkspaceClient({ socket });
    let stopHeartbeat = (): void => {};
    const closed = client.closed.then(
      () => undefined,
      () => undefined,
    );
    const interval = this.#settings.heartbeatIntervalMs;
    if (interval > 0) {
      let beating = false;
      const timer = setInterval(() => {
        if (beating) return;
        beating = true;
        // A daemon that never answers (stopped, wedged on its mount) fails the beat just like one that errors.
        let timeout: ReturnType<typeof setTimeout> | undefined;
        const overdue = new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new Error("heartbeat timed out")), interval);
        });
        Promise.race([client.sync.watermarks(), overdue])
          .then(
            () => {},
            () => {
              // The first failed heartbeat ends the session; the runtime reconnects on the next call.
              stopHeartbeat();
              void client.close();
            },
          )
          .finally(() => {
            if (timeout !== undefined) clearTimeout(timeout);
            beating = false;
          });
      }, interval);
      stopHeartbeat = () => clearInterval(timer);
      void closed.then(stopHeartbeat);
    }
    return {
      sync: "remote",
      runtimeId,
      rpc: { sync: client.sync, shell: client.shell as unknown as ShellRpcLike },
      closed,
      close: async () => {
        stopHeartbeat();
        await client.close();
      },
    };
  }
}

function armDial(
  dial: NonNullable<ReturnType<NonNullable<WorkspaceContainer["dial"]>>>,
  timeoutMs: number,
): { socket: Promise<WebSocket>; disarm(reason: Error): void } {
  const socket = dial.accept(timeoutMs);
  socket.catch(() => {});
  return { socket, disarm: () => {} };
}

/** `Bearer <secret>`, scheme case-insensitive, compared in constant time. */
export function bearerMatches(header: string | null, secret: string): boolean {
  if (header === null) return false;
  const match = /^bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1] !== undefined && timingSafeEqual(match[1], secret);
}

export function timingSafeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

function isHolder(value: ContainerSource): value is ContainerHostHolder {
  return typeof (value as Partial<ContainerHostHolder>).getWorkspaceContainer === "function";
}

/** The original's API has `port(n)`; our seam has `port`, a number. */
function isOriginalAPI(value: IWorkspaceContainerAPI | WorkspaceContainer): value is IWorkspaceContainerAPI {
  return typeof (value as { port?: unknown }).port === "function";
}

function optionalPort(port: number | undefined): number | undefined {
  return port === undefined ? undefined : checkPort(port);
}

function checkPort(port: number): number {
  if (!Number.isSafeInteger(port) || port < 1 || port > 65_535)
    throw new TypeError(`port must be 1–65535; got ${port}`);
  return port;
}

function checkMs(name: string, value: number | undefined, fallback: number, zeroOk = false): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < (zeroOk ? 0 : 1)) {
    throw new TypeError(`${name} must be a ${zeroOk ? "non-negative" : "positive"} integer; got ${String(value)}`);
  }
  return resolved;
}

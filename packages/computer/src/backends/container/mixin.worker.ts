/**
 * `withWorkspaceContainer(Base, { binding }?)`: gives a Durable Object class
 * its container — `getWorkspaceContainer()` for `CloudflareContainerBackend`
 * and `__handleContainerFetch()` for `WorkspaceProxy` — and picks which one
 * by configuration: with `COMPUTER_CONTAINER_HOST` in the environment (set in
 * `wrangler dev` / tests) the local container host, otherwise Cloudflare's
 * container (`ctx.container`). User code is the same in both.
 *
 * ```ts
 * // The container mixin inside, so `self` in the options has getWorkspaceContainer().
 * export class Agent extends withWorkspace(withWorkspaceContainer(DurableObject<Env>, { binding: "AGENT" }), (self) => ({
 *   storage: self.ctx.storage,
 *   backends: [new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() })],
 * })) {}
 * export { WorkspaceProxy } from "@cloudflare/computer/backends/container";
 * ```
 */
import { localContainer } from "./local.js";
import { CloudflarePlatformContainer, type PlatformContainer, type WorkspaceProxyProps } from "./platform.worker.js";
import type { WorkspaceContainerAPI } from "./types.js";

/** The environment variable naming the local container host (e.g. `http://127.0.0.1:45600`). */
export const CONTAINER_HOST_ENV = "COMPUTER_CONTAINER_HOST";

export interface WorkspaceContainerOptions {
  /**
   * The Durable Object namespace binding of this class, so `WorkspaceProxy` can find the object.
   * Optional when the backend names it (`new CloudflareContainerBackend({ workspace: { binding, id } })`).
   */
  binding?: string;
  /** The port computerd listens on inside the container. Default 8080. */
  port?: number;
}

export interface WorkspaceContainerHost {
  getWorkspaceContainer(): WorkspaceContainerAPI;
  __handleContainerFetch(request: Request): Promise<Response>;
}

interface ObjectState {
  ctx: DurableObjectState;
  env: unknown;
}

type Constructor<T, Env> = abstract new (ctx: DurableObjectState, env: Env) => T;

export function withWorkspaceContainer<T extends object, Env>(
  Base: Constructor<T, Env>,
  options: WorkspaceContainerOptions = {},
): Constructor<T & WorkspaceContainerHost, Env> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("withWorkspaceContainer(Base, options): options must be an object");
  }
  if (options.binding !== undefined && (typeof options.binding !== "string" || options.binding === "")) {
    throw new TypeError("withWorkspaceContainer: binding must be this class's Durable Object binding name");
  }
  abstract class WithWorkspaceContainer
    extends (Base as unknown as Constructor<object, unknown>)
    implements WorkspaceContainerHost
  {
    #container: WorkspaceContainerAPI | undefined;

    getWorkspaceContainer(): WorkspaceContainerAPI {
      this.#container ??= containerFor(this as unknown as ObjectState, options);
      return this.#container;
    }

    async __handleContainerFetch(request: Request): Promise<Response> {
      const container = this.getWorkspaceContainer();
      if (container instanceof CloudflarePlatformContainer) return container.dispatch(request);
      return new Response("this object's container does not route through WorkspaceProxy\n", { status: 404 });
    }
  }
  return WithWorkspaceContainer as unknown as Constructor<T & WorkspaceContainerHost, Env>;
}

function containerFor(self: ObjectState, options: WorkspaceContainerOptions): WorkspaceContainerAPI {
  const { ctx } = self;
  const env = (self.env ?? {}) as Record<string, unknown>;
  const hostUrl = env[CONTAINER_HOST_ENV];
  if (typeof hostUrl === "string" && hostUrl !== "") {
    return localContainer({
      url: hostUrl,
      name: ctx.id.toString(),
      storage: ctx.storage,
      ...(options.port === undefined ? {} : { port: options.port }),
    });
  }
  const container = (ctx as unknown as { container?: PlatformContainer }).container;
  if (!container) {
    throw new Error(
      `This Durable Object has no container: add a "containers" entry for it in wrangler config, ` +
        `or set ${CONTAINER_HOST_ENV} to a local container host (computerd host)`,
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

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
import { platformContainer, seamOf, WorkspaceContainerAPI } from "./container-api.worker.js";
import { localContainer } from "./local.js";
import { CloudflarePlatformContainer } from "./platform.worker.js";
import type { WorkspaceContainer } from "./types.js";

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
  /** The same object on every call; the original's API over this object's container. */
  getWorkspaceContainer(): WorkspaceContainerAPI;
  __handleContainerFetch(request: Request): Promise<Response>;
}

interface ObjectState {
  ctx: DurableObjectState;
  env: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: a mixin takes a constructor of any arguments.
type DurableObjectClass = abstract new (...args: any) => object;

/**
 * A mixin constructor's parameters: a class can extend an intersection of construct signatures only when
 * the mixin's member takes exactly `...args: any[]` (TS2510 otherwise); `Base`'s own signature still types `new`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the mixin rule asks for exactly `any[]`.
type MixinArgs = any[];

/** The base class itself (its statics), whose instances also host the container. */
export type WithWorkspaceContainerCtor<Base extends DurableObjectClass> = Base &
  (new (
    ...args: MixinArgs
  ) => InstanceType<Base> & WorkspaceContainerHost);

export function withWorkspaceContainer<Base extends DurableObjectClass>(
  Base: Base,
  options: WorkspaceContainerOptions = {},
): WithWorkspaceContainerCtor<Base> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("withWorkspaceContainer(Base, options): options must be an object");
  }
  if (options.binding !== undefined && (typeof options.binding !== "string" || options.binding === "")) {
    throw new TypeError("withWorkspaceContainer: binding must be this class's Durable Object binding name");
  }
  abstract class WithWorkspaceContainer
    extends (Base as unknown as abstract new (...args: unknown[]) => object)
    implements WorkspaceContainerHost
  {
    #container: WorkspaceContainerAPI | undefined;

    getWorkspaceContainer(): WorkspaceContainerAPI {
      const self = this as unknown as ObjectState;
      this.#container ??= new WorkspaceContainerAPI(self.ctx, containerFor(self, options));
      return this.#container;
    }

    async __handleContainerFetch(request: Request): Promise<Response> {
      const container = seamOf(this.getWorkspaceContainer());
      if (container instanceof CloudflarePlatformContainer) return container.dispatch(request);
      return new Response("this object's container does not route through WorkspaceProxy\n", { status: 404 });
    }
  }
  return WithWorkspaceContainer as unknown as WithWorkspaceContainerCtor<Base>;
}

function containerFor(self: ObjectState, options: WorkspaceContainerOptions): WorkspaceContainer {
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
  return platformContainer(ctx, options);
}

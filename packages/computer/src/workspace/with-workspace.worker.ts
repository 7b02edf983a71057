/**
 * `withWorkspace(Base, self => options)`: a Durable Object class that owns a
 * Workspace. The Workspace is built right after `super()` (so `self.ctx` and
 * `self.env` are set) and kept under a private symbol, where `getWorkspace`
 * finds it in the same isolate. Other isolates reach it through
 * `__getWorkspaceStub()`, which any object exposing that method can serve.
 *
 * Named `.worker.ts` although it imports nothing from `cloudflare:workers`
 * itself: it builds a `Workspace`, whose `stub()` does.
 */
import { WORKSPACE_INSTANCE } from "./client.js";
import type { WorkspaceStub } from "./stub.worker.js";
import { Workspace, type WorkspaceOptions } from "./workspace.worker.js";

/** What `withWorkspace` adds to the class. */
export interface WorkspaceHost {
  /** Awaits `workspace.ready()` and returns a fresh `WorkspaceStub`; the caller disposes it. */
  __getWorkspaceStub(): Promise<WorkspaceStub>;
}

/** `self` in the options callback: the instance, with the protected `ctx` and `env` made readable. */
export type WorkspaceHostSelf<T, Env> = Omit<T, "ctx" | "env"> & {
  readonly ctx: DurableObjectState;
  readonly env: Env;
};

/** A Durable Object class: `DurableObject` from `cloudflare:workers`, or a subclass of it. */
export type DurableObjectClass<T, Env> = abstract new (ctx: DurableObjectState, env: Env) => T;

export function withWorkspace<T extends object, Env>(
  Base: DurableObjectClass<T, Env>,
  options: (self: WorkspaceHostSelf<T, Env>) => WorkspaceOptions,
): DurableObjectClass<T & WorkspaceHost, Env> {
  if (typeof Base !== "function") throw new TypeError("withWorkspace(Base, options) needs a Durable Object class");
  if (typeof options !== "function") throw new TypeError("withWorkspace(Base, options) needs an options callback");
  // TypeScript's mixin rule wants a constructor of `...args: any[]`; the cast keeps that out of the public type.
  const Mixin = Base as unknown as abstract new (ctx: DurableObjectState, env: Env) => object;

  abstract class WithWorkspace extends Mixin implements WorkspaceHost {
    readonly [WORKSPACE_INSTANCE]: Workspace;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this[WORKSPACE_INSTANCE] = new Workspace(options(this as unknown as WorkspaceHostSelf<T, Env>));
    }

    async __getWorkspaceStub(): Promise<WorkspaceStub> {
      const workspace = this[WORKSPACE_INSTANCE];
      await workspace.ready();
      return workspace.stub();
    }
  }
  return WithWorkspace as unknown as DurableObjectClass<T & WorkspaceHost, Env>;
}

/**
 * The Workspace of a `withWorkspace` object, from inside that object (its
 * `alarm()` driving `retryPendingSync()`, its own RPC methods). Throws for
 * anything else, including a stub of an object in another isolate.
 */
export function workspaceOf(object: object): Workspace {
  const workspace = (object as Partial<Record<typeof WORKSPACE_INSTANCE, Workspace>>)[WORKSPACE_INSTANCE];
  if (!(workspace instanceof Workspace)) {
    throw new TypeError("workspaceOf: not a withWorkspace object in this isolate (use getWorkspace for stubs)");
  }
  return workspace;
}

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

/** What `withWorkspace` adds to the class, reachable from other isolates. */
export interface WorkspaceHost {
  /** Awaits `workspace.ready()` and returns a fresh `WorkspaceStub`; the caller disposes it. */
  __getWorkspaceStub(): Promise<WorkspaceStub>;
}
/** The original's name for `WorkspaceHost`. */
export type WorkspaceStubHost = WorkspaceHost;

/** Where `getWorkspace` finds the Workspace of an object in its own isolate. */
export interface WorkspaceLocalHost {
  readonly [WORKSPACE_INSTANCE]: Workspace;
}

/** A Durable Object class: `DurableObject` from `cloudflare:workers`, a subclass of it, or any class. */
export type DurableObjectClass<T = object, Env = unknown> = abstract new (ctx: DurableObjectState, env: Env) => T;

/** Any class: the constraint `withWorkspace` puts on its base (`never[]` takes every constructor). */
type AnyClass = abstract new (...args: never[]) => object;

/**
 * `self` in the options callback: the instance, with the `ctx` and `env` its
 * constructor was given made readable (they are `protected` on `DurableObject`).
 */
export type WorkspaceHostSelf<TBase extends AnyClass> = InstanceType<TBase> & {
  readonly ctx: ConstructorParameters<TBase>[0];
  readonly env: ConstructorParameters<TBase>[1];
};

/**
 * A mixin constructor's parameters: TypeScript merges a construct signature of exactly `...args: any[]`
 * into the other member's of an intersection, so a class can extend `Base & (new (...args: any[]) => …)`
 * (with `Base`'s own parameters there instead, the signatures would conflict).
 */
// biome-ignore lint/suspicious/noExplicitAny: the mixin rule asks for exactly `any[]`.
type MixinArgs = any[];

/**
 * The class `withWorkspace(Base, …)` returns: `Base` itself (its statics, its
 * constructor), whose instances also host a Workspace, as the original's
 * `TBase & …` says.
 */
export type WithWorkspaceCtor<TBase extends AnyClass> = TBase &
  (new (
    ...args: MixinArgs
  ) => InstanceType<TBase> & WorkspaceHost & WorkspaceLocalHost);

export function withWorkspace<TBase extends AnyClass>(
  Base: TBase,
  options: (self: WorkspaceHostSelf<TBase>) => WorkspaceOptions,
): WithWorkspaceCtor<TBase> {
  if (typeof Base !== "function") throw new TypeError("withWorkspace(Base, options) needs a Durable Object class");
  if (typeof options !== "function") throw new TypeError("withWorkspace(Base, options) needs an options callback");
  // TypeScript's mixin rule wants a constructor of `...args: any[]`; the cast keeps that out of the public type.
  const Mixin = Base as unknown as abstract new (ctx: DurableObjectState, env: unknown) => object;

  abstract class WithWorkspace extends Mixin implements WorkspaceHost {
    readonly [WORKSPACE_INSTANCE]: Workspace;

    constructor(ctx: DurableObjectState, env: unknown) {
      super(ctx, env);
      this[WORKSPACE_INSTANCE] = new Workspace(options(this as unknown as WorkspaceHostSelf<TBase>));
    }

    async __getWorkspaceStub(): Promise<WorkspaceStub> {
      const workspace = this[WORKSPACE_INSTANCE];
      await workspace.ready();
      return workspace.stub();
    }
  }
  return WithWorkspace as unknown as WithWorkspaceCtor<TBase>;
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

/**
 * Every mixin *extended*, the way the original's examples write it: a class
 * body of their own on top of the mixin, `this` handed to the container
 * backend, `getWorkspaceContainer()` called from a method. Assigning a mixin's
 * result to a variable compiles where extending it does not (TS2510: a mixin
 * constructor must be `new (...args: any[]) => …`), so only extending proves it.
 */
import { DurableObject } from "cloudflare:workers";
import { CloudflareContainerBackend, withWorkspaceContainer } from "../../src/backends/container/index.js";
import { withWorkspace } from "../../src/index.js";

type Env = { AGENT: DurableObjectNamespace };

/** The container mixin over an anonymous subclass, then extended with a body (not exported: an anonymous base has no declaration to emit). */
class Sandbox extends withWorkspaceContainer(class extends DurableObject<Env> {}) {
  readonly backend = new CloudflareContainerBackend({
    container: () => this,
    workspace: { binding: "AGENT", id: this.ctx.id.toString() },
  });

  async running(): Promise<boolean> {
    return (await this.getWorkspaceContainer().status()).running;
  }
}

/** Both mixins, the Workspace outside: `self` has the container. */
export class Agent extends withWorkspace(withWorkspaceContainer(DurableObject<Env>), (self) => ({
  storage: self.ctx.storage,
  backends: [new CloudflareContainerBackend({ container: () => self, workspace: { binding: "AGENT", id: "x" } })],
})) {
  override async fetch(): Promise<Response> {
    const container = this.getWorkspaceContainer();
    return new Response(String((await container.status()).running));
  }
}

/** The Workspace inside, the container outside. */
export class Inverted extends withWorkspaceContainer(
  withWorkspace(DurableObject<Env>, (self) => ({ storage: self.ctx.storage })),
) {
  override async fetch(): Promise<Response> {
    const stub = await this.__getWorkspaceStub();
    return new Response(String(stub !== undefined && this.getWorkspaceContainer() !== undefined));
  }
}

/** A subclass of a subclass still constructs with the Durable Object's arguments. */
class Derived extends Sandbox {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
  }
}

function running(derived: Derived): Promise<boolean> {
  return derived.running();
}
void running;

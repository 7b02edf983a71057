/**
 * The base of every Workers RPC stub of a Workspace (stub.worker.ts).
 */
import { RpcTarget } from "cloudflare:workers";

/**
 * Shared by every stub. Once disposed — by its RPC client, or with its parent —
 * calls fail instead of reaching the workspace, and its children go with it.
 * Each getter access creates a fresh child: workerd disposes a target each
 * time one of its stubs is disposed, so a shared child would die with the
 * first client that let go of it.
 */
export abstract class DisposableStub extends RpcTarget {
  #disposed = false;
  readonly #children = new Set<DisposableStub>();
  #parent: DisposableStub | undefined;

  /** Whether this stub was disposed. For diagnostics and tests. */
  get disposed(): boolean {
    return this.#disposed;
  }

  [Symbol.dispose](): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#parent) this.#parent.#children.delete(this);
    for (const child of [...this.#children]) child[Symbol.dispose]();
    this.#children.clear();
    this.released();
  }

  /** Runs once, when the stub is disposed. */
  protected released(): void {}

  protected live(what: string): void {
    if (this.#disposed) throw new TypeError(`${what}: this stub was disposed`);
  }

  /** Registers a child so disposing this stub disposes it too. */
  protected adopt<T extends DisposableStub>(child: T): T {
    child.#parent = this;
    this.#children.add(child);
    return child;
  }
}

/**
 * The main module of the `computer:workerd` test project. `ScratchObject` is
 * a bare Durable Object with SQLite storage: tests build a `Workspace` over
 * its `ctx.storage` inside `runInDurableObject`, so each test chooses its own
 * backends and options.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import { MemoryArtifactsBinding } from "../src/artifacts/memory-binding.js";
import type { PublishOptions } from "../src/contracts/capabilities.js";
import type { WorkspaceStub } from "../src/workspace/stub.worker.js";
import { withWorkspace } from "../src/workspace/with-workspace.worker.js";
import { errorCatalogue } from "./errors/catalogue.js";
import { FakeShellBackend } from "./fake-shell/backend.js";
import { ScriptedBackend } from "./scripted-backend.js";

export { WorkspaceServiceProxy } from "../src/workspace/service-proxy.worker.js";

export class ScratchObject extends DurableObject<Cloudflare.Env> {
  /** Differs between two incarnations of the same object, so a test can prove a restart happened. */
  readonly incarnation: string = crypto.randomUUID();

  // Explicit return types: inferred ones through DurableObjectStub trip TS2589.
  getIncarnation(): string {
    return this.incarnation;
  }

  /** Throws one error of the round-trip catalogue across Workers RPC (src/workspace/error-shape.worker.test.ts). */
  async throwCatalogued(seed: number, index: number): Promise<void> {
    throw errorCatalogue(seed)[index]?.error ?? new Error("no such catalogued error");
  }
}

/**
 * A `withWorkspace` object as a user would write it: FakeShellBackend first (the
 * default), a scripted direct backend for exact event shapes, the Think
 * methods, and an assets client that echoes its arguments in the URL.
 */
export class WorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [new FakeShellBackend(), new ScriptedBackend()],
  useThink: true,
  assets: {
    publish: async (path: string, options: PublishOptions) => ({
      url: `https://assets.test${path}?expiresAfter=${options.expiresAfter}`,
    }),
  },
})) {
  /** Every stub handed out, so a test can check from inside the object that a client released it. */
  readonly stubs: WorkspaceStub[] = [];

  override async __getWorkspaceStub(): Promise<WorkspaceStub> {
    const stub = await super.__getWorkspaceStub();
    this.stubs.push(stub);
    return stub;
  }
}

/** The same without Think, assets or backends: a filesystem-only workspace. */
export class PlainWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
})) {}

/**
 * An Artifacts binding on the far side of a real Workers RPC hop (reached as
 * `exports.ArtifactsService`), like a binding that is a stub: every property
 * answers, errors and the handle's methods cross the boundary. One store per
 * isolate, behind `MemoryArtifactsBinding`.
 */
const artifactsStore = new MemoryArtifactsBinding();

export class ArtifactsService extends WorkerEntrypoint implements Artifacts {
  create(...args: Parameters<Artifacts["create"]>): ReturnType<Artifacts["create"]> {
    return artifactsStore.create(...args);
  }
  get(name: string): ReturnType<Artifacts["get"]> {
    return artifactsStore.get(name);
  }
  import(params: Parameters<Artifacts["import"]>[0]): ReturnType<Artifacts["import"]> {
    return artifactsStore.import(params);
  }
  list(opts?: Parameters<Artifacts["list"]>[0]): ReturnType<Artifacts["list"]> {
    return artifactsStore.list(opts);
  }
  delete(name: string): Promise<boolean> {
    return artifactsStore.delete(name);
  }
}

export default {
  fetch(): Response {
    return new Response("computer test worker");
  },
} satisfies ExportedHandler;

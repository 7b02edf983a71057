/**
 * The main module of the `computer:compat` test project. `ScratchObject` is a
 * bare SQLite Durable Object: a differential test builds one package's
 * `Workspace` over its `ctx.storage` inside `runInDurableObject`, a fresh
 * object per side so the two packages never share tables. The two
 * `withWorkspace` objects are the same user class written against each
 * package, reached through each package's own `getWorkspace`.
 */
import { DurableObject } from "cloudflare:workers";
import { type DurableObjectStorageLike, withWorkspace as referenceWithWorkspace } from "computer-reference";
import { withWorkspace } from "../../src/workspace/with-workspace.worker.js";

/**
 * The reference types its storage as its own `DurableObjectStorageLike`,
 * whose generic `toArray()` the workers-types of this repository do not
 * satisfy; at run time it is the same `ctx.storage`.
 */
export function referenceStorage(storage: DurableObjectStorage): DurableObjectStorageLike {
  return storage as unknown as DurableObjectStorageLike;
}

// Each package's object with an Artifacts binding, for the artifacts scenario over RPC.
export { OursArtifactsObject, ReferenceArtifactsObject } from "./artifacts-objects.worker.js";
// Each package's worker-shell object, and the service proxy their Dynamic Workers reach them through.
export { OursShellObject, ReferenceShellObject, WorkspaceServiceProxy } from "./shell-objects.worker.js";

export class ScratchObject extends DurableObject<Cloudflare.Env> {}

/**
 * The reference's `withWorkspace` types its base as a concrete constructor,
 * and `DurableObject` is abstract in workers-types (with `ctx` protected):
 * the cast a user of the reference writes. At run time it is `DurableObject`.
 */
const ConcreteDurableObject = DurableObject as unknown as new (
  ctx: DurableObjectState,
  env: unknown,
) => { readonly ctx: DurableObjectState };

export class ReferenceWorkspaceObject extends referenceWithWorkspace(ConcreteDurableObject, (self) => ({
  storage: referenceStorage(self.ctx.storage),
})) {}

export class OursWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
})) {}

/**
 * The same `withWorkspace` object written against each package, with an
 * Artifacts binding (`MemoryArtifactsBinding`, one per object: the service
 * is not reachable here) and session "s1", for artifacts.worker.test.ts's
 * scenario over `getWorkspace()` and Workers RPC.
 */
import { DurableObject } from "cloudflare:workers";
import { type DurableObjectStorageLike, withWorkspace as referenceWithWorkspace } from "computer-reference";
import { MemoryArtifactsBinding } from "../../src/artifacts/index.js";
import { withWorkspace } from "../../src/workspace/with-workspace.worker.js";

const ConcreteDurableObject = DurableObject as unknown as new (
  ctx: DurableObjectState,
  env: unknown,
) => { readonly ctx: DurableObjectState };

const binding = () => new MemoryArtifactsBinding({ remoteBase: "https://artifacts.test/acct", now: () => 0 });

export class ReferenceArtifactsObject extends referenceWithWorkspace(ConcreteDurableObject, (self) => ({
  // The same ctx.storage; the reference types it as its own DurableObjectStorageLike (see main.worker.ts).
  storage: self.ctx.storage as unknown as DurableObjectStorageLike,
  sessionId: "s1",
  artifacts: { binding: binding() },
})) {}

export class OursArtifactsObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  sessionId: "s1",
  artifacts: { binding: binding() },
})) {}

/**
 * The same `withWorkspace` object written against each package, on its
 * worker-shell backend with the python, sqlite and js-exec groups, as the
 * original's docs show (`commands: [...]` from `@cloudflare/computer/shell/*`).
 * shell-groups.worker.test.ts runs their commands. Both Dynamic Workers
 * reach their object through our `WorkspaceServiceProxy` (exported from the
 * main module; the original's sandbox asks it only for `getWorkspace()`,
 * which any object with `__getWorkspaceStub()` answers).
 */
import { DurableObject, env } from "cloudflare:workers";
import { type DurableObjectStorageLike, withWorkspace as referenceWithWorkspace } from "computer-reference";
import { WorkerShellBackend as ReferenceWorkerShellBackend } from "computer-reference/backends/worker-shell";
import referenceJsExec from "computer-reference/shell/js-exec";
import referencePython from "computer-reference/shell/python";
import referenceSqlite from "computer-reference/shell/sqlite";
import jsExec from "#sandbox/worker-shell/js-exec";
import python from "#sandbox/worker-shell/python";
import sqlite from "#sandbox/worker-shell/sqlite";
import { WorkerShellBackend } from "../../src/backends/worker-shell/index.js";
import { withWorkspace } from "../../src/workspace/with-workspace.worker.js";

export { WorkspaceServiceProxy } from "../../src/workspace/service-proxy.worker.js";

const ConcreteDurableObject = DurableObject as unknown as new (
  ctx: DurableObjectState,
  env: unknown,
) => { readonly ctx: DurableObjectState };

export class ReferenceShellObject extends referenceWithWorkspace(ConcreteDurableObject, (self) => ({
  // The same ctx.storage; the reference types it as its own DurableObjectStorageLike (see main.worker.ts).
  storage: self.ctx.storage as unknown as DurableObjectStorageLike,
  backends: [
    new ReferenceWorkerShellBackend({
      loader: env.LOADER as never,
      workspace: { binding: "REFERENCE_SHELL", id: self.ctx.id.toString() },
      ctx: self.ctx,
      commands: [referencePython, referenceSqlite, referenceJsExec],
    }),
  ],
})) {}

export class OursShellObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [
    new WorkerShellBackend({
      loader: self.env.LOADER,
      workspace: { binding: "OURS_SHELL", id: self.ctx.id.toString() },
      ctx: self.ctx,
      commands: [python, sqlite, jsExec],
    }),
  ],
})) {}

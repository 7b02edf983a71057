/**
 * Runs a test body inside a fresh Durable Object with a `Workspace` over its
 * storage and a `FakeShellBackend`, the way a host's DO would hold one.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { openDurableObjectDatabase } from "@cloudflare/dofs";
import { type SyncRetryScheduler, sqlSyncRetryScheduler } from "../src/runtime/retry.js";
import { Workspace, type WorkspaceOptions } from "../src/workspace/workspace.worker.js";
import { FakeShellBackend } from "./fake-shell/backend.js";

export interface WorkspaceFixture {
  workspace: Workspace;
  backend: FakeShellBackend;
  storage: DurableObjectStorage;
  scheduler: SyncRetryScheduler;
  /** A second Workspace over the same storage and backend: what a new DO incarnation would build. */
  reopen(options?: Partial<WorkspaceOptions>): Workspace;
}

export interface FixtureOptions extends Partial<WorkspaceOptions> {
  /** Build the Workspace with the SQLite retry scheduler (default true). */
  withScheduler?: boolean;
}

export async function inWorkspace(
  body: (fixture: WorkspaceFixture) => Promise<void>,
  options: FixtureOptions = {},
): Promise<void> {
  const stub = env.SCRATCH.get(env.SCRATCH.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const backend = new FakeShellBackend();
    const { withScheduler = true, ...rest } = options;
    const opened: Workspace[] = [];
    const scheduler = sqlSyncRetryScheduler(openDurableObjectDatabase(state.storage));
    const open = (extra: Partial<WorkspaceOptions> = {}): Workspace => {
      const workspace = new Workspace({
        storage: state.storage,
        backends: [backend],
        ...(withScheduler ? { retryScheduler: scheduler } : {}),
        ...rest,
        ...extra,
      });
      opened.push(workspace);
      return workspace;
    };
    const workspace = open();
    try {
      await body({ workspace, backend, storage: state.storage, scheduler, reopen: open });
    } finally {
      await Promise.allSettled(opened.map((each) => each.close()));
    }
  });
}

/**
 * Runs a test body in a fresh Durable Object with a `Workspace` over its
 * storage and a `FakeShellBackend`: what a host's DO holds when it hands the tools
 * to an agent.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace, type WorkspaceOptions } from "../../src/workspace/workspace.worker.js";
import { FakeShellBackend } from "../fake-shell/backend.js";

export interface ToolsFixture {
  workspace: Workspace;
  backend: FakeShellBackend;
  storage: DurableObjectStorage;
  /** Another Workspace over the same storage: what the DO's next incarnation builds. */
  reopen(options?: Partial<WorkspaceOptions>): Workspace;
}

export async function inToolsWorkspace(
  body: (fixture: ToolsFixture) => Promise<void>,
  options: Partial<WorkspaceOptions> = {},
): Promise<void> {
  const stub = env.TOOLS_OBJECT.get(env.TOOLS_OBJECT.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const backend = new FakeShellBackend();
    const opened: Workspace[] = [];
    const open = (extra: Partial<WorkspaceOptions> = {}): Workspace => {
      const workspace = new Workspace({ storage: state.storage, backends: [backend], ...options, ...extra });
      opened.push(workspace);
      return workspace;
    };
    const workspace = open();
    try {
      await body({ workspace, backend, storage: state.storage, reopen: open });
    } finally {
      await Promise.allSettled(opened.map((each) => each.close()));
    }
  });
}

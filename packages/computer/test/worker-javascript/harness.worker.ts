/**
 * Runs a test body inside a fresh `JsWorkspaceObject` with a Workspace on
 * the worker-javascript backend over its storage. `open(options)` builds
 * another Workspace (another backend, other options) over the same storage,
 * which is what a new Durable Object incarnation would do.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import {
  type FetcherLike,
  WorkerJavaScriptBackend,
  type WorkerJavaScriptOptions,
  type WorkerLoaderLike,
} from "../../src/backends/worker-javascript/index.js";
import type { ExecResult } from "../../src/runtime/types.js";
import { Workspace, type WorkspaceOptions } from "../../src/workspace/workspace.worker.js";

export const JS = { backend: "worker-javascript", encoding: "utf8" } as const;

export interface JsFixture {
  workspace: Workspace;
  backend: WorkerJavaScriptBackend;
  state: DurableObjectState;
  /** Times the Worker Loader was asked for a Worker, across every backend of this fixture. */
  loads(): number;
  open(
    options?: Partial<WorkerJavaScriptOptions>,
    workspace?: Omit<Partial<WorkspaceOptions>, "storage" | "backends">,
  ): {
    workspace: Workspace;
    backend: WorkerJavaScriptBackend;
  };
  /** `ctx.exports.Gateway()` of the test worker. */
  gateway(): FetcherLike;
}

export async function inJsWorkspace(
  body: (fixture: JsFixture) => Promise<void>,
  options: Partial<WorkerJavaScriptOptions> = {},
): Promise<void> {
  const stub = env.JS_WORKSPACE.get(env.JS_WORKSPACE.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    let loads = 0;
    const real: WorkerLoaderLike = env.LOADER;
    const loader: WorkerLoaderLike = {
      load(code) {
        loads += 1;
        return real.load(code);
      },
    };
    const opened: Workspace[] = [];
    const open: JsFixture["open"] = (extra = {}, workspaceOptions = {}) => {
      const backend = new WorkerJavaScriptBackend({
        loader,
        ...options,
        ...extra,
      });
      const workspace = new Workspace({ storage: state.storage, backends: [backend], ...workspaceOptions });
      opened.push(workspace);
      return { workspace, backend };
    };
    const first = open();
    await first.workspace.fs.mkdir("/workspace", { recursive: true });
    try {
      await body({
        ...first,
        state,
        loads: () => loads,
        open,
        gateway: () => (state.exports as unknown as { Gateway(options: object): FetcherLike }).Gateway({}),
      });
    } finally {
      await Promise.allSettled(opened.map((each) => each.close()));
    }
  });
}

/** Runs `source` to the end on the fixture's Workspace. */
export async function run(
  workspace: Workspace,
  source: string,
  options: {
    input?: unknown;
    cwd?: string;
    env?: Record<string, string>;
    stdin?: string;
    id?: string;
    timeoutMs?: number;
  } = {},
): Promise<ExecResult> {
  return (await workspace.runtime.exec(source, { ...JS, ...options })).result();
}

/**
 * The main module of the `computer-js:workerd` test project.
 * `JsWorkspaceObject` holds a Workspace on the worker-javascript backend the
 * way a host's Durable Object would; tests reach it with `runInDurableObject`
 * (to build Workspaces with other options over the same storage) or through
 * its RPC methods (the restart test, which needs a real new incarnation).
 * `Gateway` is the egress gateway of the http-gateway test.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import type { ExecResult } from "../../src/runtime/types.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";

export class JsWorkspaceObject extends DurableObject<Cloudflare.Env> {
  readonly workspace: Workspace;
  readonly incarnation: string = crypto.randomUUID();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.workspace = new Workspace({
      storage: ctx.storage,
      backends: [new WorkerJavaScriptBackend({ loader: env.LOADER })],
    });
  }

  getIncarnation(): string {
    return this.incarnation;
  }

  /** Starts an execution and returns once its first event arrived; the execution keeps running. */
  async startAndWaitForOutput(id: string, source: string): Promise<string> {
    await this.workspace.fs.mkdir("/workspace", { recursive: true });
    const handle = await this.workspace.runtime.exec(source, { id, encoding: "utf8" });
    const reader = handle.getReader();
    const first = await reader.read();
    reader.releaseLock();
    return first.done || first.value.name === "exit" ? "" : String(first.value.value);
  }

  async result(id: string): Promise<Pick<ExecResult, "status" | "exitCode" | "stdout" | "stderr">> {
    const result = await (await this.workspace.runtime.getExec(id, { encoding: "utf8" })).result();
    return {
      status: result.status,
      exitCode: result.exitCode,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
    };
  }
}

/** Answers every request itself, naming the URL, so a test can see which requests went through it. */
export class Gateway extends WorkerEntrypoint {
  override async fetch(request: Request): Promise<Response> {
    return new Response(`gateway saw ${request.method} ${request.url}`);
  }
}

export default {
  fetch(request: Request): Response {
    return new Response(`test worker saw ${request.url}`);
  },
} satisfies ExportedHandler;

/**
 * The main module of the `computer-shell:workerd` test project.
 * `ShellWorkspaceObject` is a `withWorkspace` Durable Object on the
 * worker-shell backend, as a host would write it, with the `curl` and `jq`
 * groups, a recording assets client, and an http-gateway backend next to the
 * default one. `PlainShellWorkspaceObject` has no assets, git or artifacts.
 * `Gateway` is the egress gateway; `WorkspaceServiceProxy` must be exported
 * from the main module for the Dynamic Worker to reach the Workspace.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import curl from "#sandbox/worker-shell/curl";
import jq from "#sandbox/worker-shell/jq";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import { WorkerShellBackend, type WorkerShellEgress } from "../../src/backends/worker-shell/index.js";
import type { PublishOptions } from "../../src/workspace/capabilities.js";
import { withWorkspace } from "../../src/workspace/with-workspace.worker.js";

export { WorkspaceServiceProxy } from "../../src/workspace/service-proxy.worker.js";

export interface PublishCall {
  path: string;
  expiresAfter: number;
}

function shellBackend(
  self: { ctx: DurableObjectState; env: Cloudflare.Env },
  binding: "SHELL_WORKSPACE" | "PLAIN_SHELL_WORKSPACE",
  egress: WorkerShellEgress,
  id?: string,
): WorkerShellBackend {
  return new WorkerShellBackend({
    loader: self.env.LOADER,
    workspace: { binding, id: self.ctx.id.toString() },
    ctx: self.ctx,
    commands: [curl, jq],
    egress,
    ...(id === undefined ? {} : { id }),
  });
}

/** `ctx.exports.Gateway`; typed here because every test worker's main module shares one `Cloudflare.GlobalProps`. */
function gatewayOf(ctx: DurableObjectState): Fetcher {
  return (ctx.exports as unknown as { Gateway(options: { props: object }): Fetcher }).Gateway({ props: {} });
}

export class ShellWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [
    shellBackend(self, "SHELL_WORKSPACE", { mode: "none" }),
    shellBackend(self, "SHELL_WORKSPACE", { mode: "direct" }, "shell-direct"),
    shellBackend(
      self,
      "SHELL_WORKSPACE",
      { mode: "http-gateway", gateway: gatewayOf(self.ctx), revision: "r1" },
      "shell-gateway",
    ),
    // The JavaScript sandbox too, so one object can compare every surface's errors (errors.worker.test.ts).
    new WorkerJavaScriptBackend({ loader: self.env.LOADER }),
  ],
  assets: {
    publish: async (path: string, options: PublishOptions) => {
      (self as unknown as ShellWorkspaceObject).published.push({ path, expiresAfter: options.expiresAfter });
      return { url: `https://assets.test${path}` };
    },
  },
})) {
  readonly incarnation: string = crypto.randomUUID();
  readonly published: PublishCall[] = [];

  // Explicit return types: inferred ones through DurableObjectStub trip TS2589.
  getIncarnation(): string {
    return this.incarnation;
  }
}

export class PlainShellWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [shellBackend(self, "PLAIN_SHELL_WORKSPACE", { mode: "none" })],
})) {}

/** Answers every request itself, naming the URL, so a test can see which requests went through it. */
export class Gateway extends WorkerEntrypoint {
  override async fetch(request: Request): Promise<Response> {
    return new Response(`gateway saw ${request.method} ${request.url}\n`);
  }
}

export default {
  fetch(request: Request): Response {
    return new Response(`shell test worker saw ${request.url}`);
  },
} satisfies ExportedHandler;

/**
 * The main module of the `computer-shell:workerd` test project.
 * `ShellWorkspaceObject` is a `withWorkspace` Durable Object on the
 * worker-shell backend, as a host would write it, with the `curl` and `jq`
 * groups, a recording assets client, and an http-gateway backend next to the
 * default one. `PlainShellWorkspaceObject` has no assets, git or artifacts.
 * `Gateway` is the egress gateway; `WorkspaceServiceProxy` must be exported
 * from the main module for the Dynamic Worker to reach the Workspace.
 * `OwnShellWorkspaceObject` runs its commands in this Worker's own
 * `ShellWorker` entrypoints instead (a subclass with extra commands, the
 * class as exported, one with `bashFactoryOverride`), as external runtimes.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import type { CustomCommand } from "just-bash";
import curl from "#sandbox/worker-shell/curl";
import jq from "#sandbox/worker-shell/jq";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import {
  type ShellRunOptions,
  type ShellRunResult,
  ShellWorker,
  type ShellWorkerProps,
  type ShellWorkspace,
  WorkerShellBackend,
  type WorkerShellEgress,
} from "../../src/backends/worker-shell/index.js";
import type { PublishOptions } from "../../src/contracts/capabilities.js";
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

/** The `ShellWorker` of the package, exported as it is: the backend's external runtime "plain". */
export { ShellWorker };

/** A Worker's own shell with two commands of its own and a default cwd. */
export class ProjectShell extends ShellWorker<Cloudflare.Env> {
  protected override readonly shellOptions = { cwd: "/workspace/project" };

  protected override extraCommands(ws: ShellWorkspace): CustomCommand[] {
    return [
      {
        name: "hello",
        async execute(args, ctx) {
          return { stdout: `hello ${args.join(" ")} from ${ctx.cwd}\n`, stderr: "", exitCode: 0 };
        },
      },
      {
        // Through the Workspace stub the run works in, not just-bash's view of the files.
        name: "entries",
        async execute(_args, ctx) {
          const names = (await ws.fs.readdir(ctx.cwd)).map((entry) => entry.name);
          return { stdout: `${names.join(",")}\n`, stderr: "", exitCode: 0 };
        },
      },
    ];
  }
}

/** The original's test seam: the command and the run's settings, with no just-bash run. */
export class RecordingShell extends ShellWorker<Cloudflare.Env> {
  protected override bashFactoryOverride = async (
    command: string,
    options: ShellRunOptions,
  ): Promise<ShellRunResult> => ({
    stdout: `${command} in ${options.cwd}; commands ${options.customCommands.map((c) => c.name).join(",")}\n`,
    stderr: "",
    exitCode: 3,
  });
}

/** `ctx.exports` with this Worker's shells; typed here because the test workers share one `Cloudflare.GlobalProps`. */
type ShellExports = Record<
  "ShellWorker" | "ProjectShell" | "RecordingShell",
  (options: { props: Partial<ShellWorkerProps> }) => ShellWorker
>;

function ownShell(
  self: { ctx: DurableObjectState },
  id: string,
  entrypoint: keyof ShellExports,
  props: Partial<ShellWorkerProps> = { binding: "OWN_SHELL_WORKSPACE", id: self.ctx.id.toString() },
): WorkerShellBackend {
  const exports = self.ctx.exports as unknown as ShellExports;
  return new WorkerShellBackend({
    id,
    source: { type: "external-runtime", connect: () => exports[entrypoint]({ props }) },
  });
}

export class OwnShellWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [
    ownShell(self, "project", "ProjectShell"),
    ownShell(self, "plain", "ShellWorker"),
    ownShell(self, "recording", "RecordingShell"),
    ownShell(self, "unplaced", "ShellWorker", {}),
  ],
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

/**
 * Backend wiring written as the original's users write it, compiled against
 * ours (part of `tsconfig.compat.json`): a hand-written module backend, the
 * three backends side by side, the container mixin with `container: () =>
 * self`, host modules whose functions get their parameter types from the
 * options, and a `ShellWorker` subclass with a command of its own, given to
 * the backend as an external runtime.
 */
import { DurableObject } from "cloudflare:workers";
import type { CustomCommand } from "just-bash";
import { CloudflareContainerBackend, withWorkspaceContainer } from "../../src/backends/container/index.js";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import { ShellWorker, WorkerShellBackend } from "../../src/backends/worker-shell/index.js";
import {
  type ModuleExecutionEnvelope,
  type ModuleExecutionInput,
  type WorkspaceModuleBackend,
  type WorkspaceModuleBackendHandle,
  type WorkspaceModuleBackendHost,
  withWorkspace,
  workspaceOf,
} from "../../src/index.js";

type Env = { LOADER: WorkerLoader; AGENT: DurableObjectNamespace };

/** A module backend: `wc -c` of a workspace file, with its length as the value. */
class ByteCount implements WorkspaceModuleBackend {
  readonly protocol = "module";
  readonly id = "bytes";
  readonly type = "byte-count";
  readonly callable = true;

  async connect(host: WorkspaceModuleBackendHost): Promise<WorkspaceModuleBackendHandle> {
    return {
      async exec(input: ModuleExecutionInput): Promise<ModuleExecutionEnvelope> {
        const id = input.id ?? crypto.randomUUID();
        const text = await host.fs.readFile(input.source, "utf8");
        // The host's git is the typed client, as the original's host types it.
        if (input.source === "/repo/.git") await host.git.status({ dir: "/repo" });
        const events = new ReadableStream({
          start(controller) {
            controller.enqueue({ id, seq: 1, name: "stdout", value: new TextEncoder().encode(`${text.length}\n`) });
            controller.enqueue({ id, seq: 2, name: "exit", code: 0, result: text.length });
            controller.close();
          },
        });
        return { id, events };
      },
      async getExec({ id }) {
        throw new Error(`no such execution: ${id}`);
      },
      async killExec() {},
      async disposeExec() {},
    };
  }
}

export class Agent extends withWorkspace(withWorkspaceContainer(DurableObject<Env>), (self) => ({
  storage: self.ctx.storage,
  backends: [
    new CloudflareContainerBackend({
      container: () => self,
      workspace: { binding: "AGENT", id: self.ctx.id.toString() },
      containerPort: 8080,
    }),
    new WorkerShellBackend({
      loader: self.env.LOADER,
      workspace: { binding: "AGENT", id: self.ctx.id.toString() },
      ctx: self.ctx,
    }),
    new WorkerJavaScriptBackend({
      loader: self.env.LOADER,
      trustedModules: {
        "ws:clock": { call: async (method, args) => `${method}:${args.length}` },
        clock: { call: (input, context) => [input ?? null, context.deadline] },
      },
    }),
    new ByteCount(),
  ],
})) {
  async count(path: string): Promise<number> {
    const container = this.getWorkspaceContainer();
    const { running } = await container.status();
    const bytes = await (await workspaceOf(this).runtime.exec(path, { backend: "bytes" })).result();
    return running ? Number(bytes.value) : -1;
  }
}

/** The original's `ShellWorker`, subclassed: its options, a command of its own, its test seam. */
export class Shell extends ShellWorker<Env> {
  protected override readonly shellOptions = { cwd: "/workspace/app", fetch: null };
  protected override bashFactoryOverride = undefined;

  protected override extraCommands(): CustomCommand[] {
    return [{ name: "hi", execute: async () => ({ stdout: "hi\n", stderr: "", exitCode: 0 }) }];
  }
}

export function ownShell(shell: Shell): WorkerShellBackend {
  return new WorkerShellBackend({ source: { type: "external-runtime", connect: () => shell } });
}

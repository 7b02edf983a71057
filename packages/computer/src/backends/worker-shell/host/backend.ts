/**
 * `WorkerShellBackend`: a command backend whose commands run in just-bash
 * inside a Dynamic Worker, directly on the workspace's own files. There is
 * no second copy, so its handle says `sync: "none"` and the runtime skips
 * the bracket (0 pushed, 0 pulled).
 *
 * One Dynamic Worker per backend, from `loader.get(<loader id>, …)`: the id
 * is `(loaderId ?? "workspace-shell:<workspace id>") + ":" + <egress key>`,
 * because a Worker's `globalOutbound` is fixed when it is created. The Worker
 * reaches the Workspace through `env.HOST`, a `WorkspaceServiceProxy` stub
 * (a Durable Object stub fits in a loaded Worker's env only from compatibility
 * date 2026-08-15, a namespace never; the entrypoint stub works on any date).
 */
import { rpcError } from "@cloudflare/computer-rpc";
import { toShape } from "@cloudflare/dofs";
import type { SyncRPC } from "@cloudflare/dofs/sync";
import core from "#sandbox/worker-shell/core";
import type { BackendHandle, CommandBackend, ShellRpcLike } from "../../../runtime/backend.js";
import {
  groupMarkerModule,
  SHELL_ENTRYPOINT,
  SHELL_GROUP_COMMANDS,
  SHELL_MAIN_MODULE,
  SHELL_UNAVAILABLE_GROUPS,
  type ShellExecReply,
  type WorkerShellRuntime,
} from "../protocol/messages.js";
import { decodeFrames, type ShellWireEvent } from "./frames.js";
import { mergeShellModules, type ShellModuleGroup } from "./modules.js";
import {
  egressKey,
  outboundFor,
  type ResolvedShellOptions,
  resolveShellOptions,
  type ShellHostContext,
  type ShellWorkerCode,
  type WorkerShellEgress,
  type WorkerShellLoaderSource,
  type WorkerShellOptions,
} from "./options.js";

/** The optional commands a module map carries, found by the marker module each group ships. */
/** The core group (the shell, its built-in commands), bundled from ../sandbox/ at build time. */
export const SHELL_CORE_MODULES: ShellModuleGroup = core;

/**
 * Modules a shell Worker carries besides the groups (the original's name).
 * Ours bundles everything the shell needs into the core group, so this is
 * empty; spreading it into a module map is harmless.
 */
export const SHELL_RUNTIME_MODULES: Readonly<ShellModuleGroup> = Object.freeze({});

/**
 * The module map of a shell Worker: the core group plus the given groups.
 * `assembleShellModules([curl])` is the original's form; the two-argument
 * form names the core group explicitly (a custom or test build).
 */
export function assembleShellModules(groups?: readonly ShellModuleGroup[]): ShellModuleGroup;
export function assembleShellModules(core: ShellModuleGroup, groups?: readonly ShellModuleGroup[]): ShellModuleGroup;
export function assembleShellModules(
  first?: ShellModuleGroup | readonly ShellModuleGroup[],
  groups: readonly ShellModuleGroup[] = [],
): ShellModuleGroup {
  if (first === undefined || Array.isArray(first)) {
    return mergeShellModules(SHELL_CORE_MODULES, (first as readonly ShellModuleGroup[] | undefined) ?? []);
  }
  return mergeShellModules(first as ShellModuleGroup, groups);
}

export function enabledCommands(modules: ShellModuleGroup): string[] {
  const given = (group: string) => groupMarkerModule(group) in modules;
  return [
    ...Object.entries(SHELL_GROUP_COMMANDS).flatMap(([group, commands]) => (given(group) ? [...commands] : [])),
    // The groups whose commands cannot run here: enabled so the shell can say so (protocol/messages.ts).
    ...Object.entries(SHELL_UNAVAILABLE_GROUPS).flatMap(([group, commands]) =>
      given(group) ? Object.keys(commands) : [],
    ),
  ];
}

/**
 * The handle's `rpc.sync`: every method throws, since the handle says
 * `sync: "none"` and the runtime never calls them. Typed to return `never`,
 * so the handle fits our `BackendHandle` and the original's alike (their
 * sync wire differs from ours, and neither is spoken here).
 */
export type NoSyncRpc = { readonly [Method in keyof SyncRPC]: (...args: unknown[]) => never };

const NO_SYNC: NoSyncRpc = Object.freeze(
  Object.fromEntries(
    (["push", "fetchChanges", "watermarks", "readEntry", "hasObjects", "fetchObjects", "pushObjects"] as const).map(
      (name) => [
        name,
        (): never => {
          throw new TypeError(`worker-shell has no sync (${name}): it works on the workspace itself`);
        },
      ],
    ),
  ) as NoSyncRpc,
);

/** What the handle's shell takes: our request (an id is always set) or the original's (`id` optional, `input` ignored). */
export interface WorkerShellExecRequest {
  source: string;
  id?: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  input?: unknown;
}

/** One execution on the shell: the id it runs under and its decoded events. */
export interface WorkerShellExec {
  id: string;
  events: ReadableStream<ShellWireEvent>;
}

/** The handle's `rpc.shell`. */
export interface WorkerShellRpc extends ShellRpcLike {
  exec(request: WorkerShellExecRequest): Promise<WorkerShellExec>;
  getExec(request: { id: string; after?: number | "tail" }): Promise<WorkerShellExec>;
  killExec(request: { id: string; signal?: string }): Promise<void>;
  disposeExec(request: { id: string }): Promise<void>;
}

/** What `connect()` returns: a command backend handle with nothing to sync. */
export interface WorkerShellHandle extends BackendHandle {
  readonly sync: "none";
  readonly rpc: { readonly sync: NoSyncRpc; readonly shell: WorkerShellRpc };
  close(): Promise<void>;
}

/**
 * The sandbox's errors cross Workers RPC with their fields as own properties
 * (dofs' error shape); the two an exec id can meet become this end's
 * `WorkspaceRpcError` with the syscall of the call that met them.
 */
function rewire(error: unknown, syscall: string, id: string | undefined): unknown {
  const { code } = toShape(error);
  if (code === "EEXEC_BUSY" || code === "ENOENT") return rpcError(code, syscall, id);
  return error;
}

function dispose(target: unknown): void {
  const disposer = (target as { [Symbol.dispose]?: () => void } | null)?.[Symbol.dispose];
  if (typeof disposer === "function") {
    try {
      disposer.call(target);
    } catch {}
  }
}

export class WorkerShellBackend implements CommandBackend {
  readonly kind = "command";
  readonly type = "worker-shell";
  readonly id: string;
  readonly #options: ResolvedShellOptions;
  /** Stands in for the gateway revision when none is given, and names this backend's runtime. */
  readonly #instance = crypto.randomUUID();

  constructor(options: WorkerShellOptions) {
    this.#options = resolveShellOptions(options);
    this.id = this.#options.id;
  }

  get egress(): WorkerShellEgress {
    return this.#options.egress;
  }

  /** The id the Dynamic Worker is loaded under; `undefined` for an external runtime. */
  get loaderId(): string | undefined {
    const { source, loaderId, egress } = this.#options;
    if (source.type !== "loader") return undefined;
    return `${loaderId ?? `workspace-shell:${source.workspace.id}`}:${egressKey(egress, this.#instance)}`;
  }

  /** What the Worker Loader is given (the callback's value), for inspection and tests. */
  workerCode(): ShellWorkerCode {
    const { source } = this.#options;
    if (source.type !== "loader") throw new TypeError("WorkerShellBackend: an external-runtime source loads no Worker");
    const modules = mergeShellModules(SHELL_CORE_MODULES, this.#options.commands);
    const { binding, id } = source.workspace;
    return {
      compatibilityDate: this.#options.compatibilityDate,
      compatibilityFlags: [...this.#options.compatibilityFlags],
      mainModule: SHELL_MAIN_MODULE,
      modules,
      env: {
        // Checked by resolveShellOptions: ctx.exports.WorkspaceServiceProxy is a function.
        HOST: (source.ctx as ShellHostContext).exports.WorkspaceServiceProxy({ props: { binding, id } }),
        SHELL_COMMANDS: enabledCommands(modules),
      },
      ...outboundFor(this.#options.egress),
    };
  }

  async connect(): Promise<WorkerShellHandle> {
    const { source, egress } = this.#options;
    let runtime: WorkerShellRuntime;
    let release = (): void => {};
    if (source.type === "loader") {
      const loaded = this.#load(source);
      runtime = loaded.runtime;
      release = loaded.release;
    } else {
      runtime = await source.connect({ egress });
    }
    let closeHandle = (): void => {};
    const closed = new Promise<void>((resolve) => {
      closeHandle = resolve;
    });
    let open = true;
    const close = async (): Promise<void> => {
      if (!open) return;
      open = false;
      release();
      closeHandle();
    };
    return {
      sync: "none",
      runtimeId: this.#instance,
      rpc: { sync: NO_SYNC, shell: this.#shell(runtime) },
      closed,
      close,
    };
  }

  #load(source: WorkerShellLoaderSource): { runtime: WorkerShellRuntime; release: () => void } {
    const worker = source.loader.get(this.loaderId as string, () => this.workerCode());
    const entrypoint = worker.getEntrypoint(SHELL_ENTRYPOINT) as WorkerShellRuntime;
    return {
      runtime: entrypoint,
      release: () => {
        dispose(entrypoint);
        dispose(worker);
      },
    };
  }

  #shell(runtime: WorkerShellRuntime): WorkerShellRpc {
    const wrap = (reply: ShellExecReply): WorkerShellExec => ({ id: reply.id, events: decodeFrames(reply.events) });
    return {
      async exec(request: WorkerShellExecRequest): Promise<WorkerShellExec> {
        const { source, stdin, input: _input, ...rest } = request;
        try {
          return wrap(
            await runtime.exec({
              command: source,
              ...rest,
              ...(stdin === undefined
                ? {}
                : { stdin: typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin }),
            }),
          );
        } catch (error) {
          throw rewire(error, "exec", request.id);
        }
      },
      async getExec(request): Promise<WorkerShellExec> {
        try {
          return wrap(await runtime.getExec({ id: request.id }));
        } catch (error) {
          throw rewire(error, "getExec", request.id);
        }
      },
      async killExec(request): Promise<void> {
        await runtime.killExec(
          request.signal === undefined ? { id: request.id } : { id: request.id, signal: request.signal },
        );
      },
      async disposeExec(request): Promise<void> {
        // The original's runtime has no disposeExec: its executions end on their own.
        await runtime.disposeExec?.({ id: request.id });
      },
    };
  }
}

/**
 * `WorkerShellBackend`'s options, their validation, and the egress mapping.
 * The structural types keep this file runtime-neutral: `env.LOADER`,
 * `ctx.exports` and a gateway entrypoint all satisfy them.
 */

import type { WorkerShellRuntime } from "../protocol/messages.js";
import type { ShellModuleGroup } from "./modules.js";

export const WORKER_SHELL_ID = "worker-shell";
/** The reference's default. It must not be newer than the workerd that runs the host (docs/toolchain.md). */
export const WORKER_SHELL_COMPATIBILITY_DATE = "2026-06-17";

/** A service binding or `ctx.exports.SomeEntrypoint()`: something fetch() can be sent to. */
export interface FetcherLike {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

/** Who the shell's `fetch` (curl) reaches. `none` by default; `curl` never grants network by itself. */
export type WorkerShellEgress =
  | { mode: "none" }
  | { mode: "direct" }
  | { mode: "http-gateway"; gateway: FetcherLike; revision?: string };

/** What the backend hands the Worker Loader (a supertype of the loader's `WorkerLoaderWorkerCode`). */
export interface ShellWorkerCode {
  compatibilityDate: string;
  compatibilityFlags: string[];
  mainModule: string;
  modules: ShellModuleGroup;
  env: { HOST: unknown; SHELL_COMMANDS: string[] };
  globalOutbound?: FetcherLike | null;
}

/**
 * The Worker code a loader callback may return: the shape of workers-types'
 * `WorkerLoaderWorkerCode`, loose enough that `env.LOADER` and the original's
 * `WorkerShellLoader` both fit.
 */
export interface LoaderCodeLike {
  compatibilityDate: string;
  compatibilityFlags?: string[];
  mainModule: string;
  modules: Record<string, string | { js?: string; cjs?: string; text?: string }>;
  env?: Record<string, unknown>;
  globalOutbound?: unknown;
}

/** `env.LOADER` (a `worker_loaders` binding). */
export interface ShellWorkerLoaderLike {
  get(
    id: string,
    code: () => LoaderCodeLike | Promise<LoaderCodeLike>,
  ): { getEntrypoint(name?: string): unknown; [Symbol.dispose]?: () => void };
}

/** The Durable Object whose Workspace the shell works on: its namespace binding's name and its id (`id.toString()`). */
export interface WorkspaceRef {
  binding: string;
  id: string;
}

/** What the backend uses of the host's `ctx`: the loopback of its re-exported `WorkspaceServiceProxy`. */
export interface ShellHostContext {
  exports: { WorkspaceServiceProxy(options: { props: WorkspaceRef }): unknown };
}

/**
 * The host's `ctx` as options take it: any object, so a `DurableObjectState`
 * from plain `@cloudflare/workers-types` (which declares no `exports`; only
 * `wrangler types` output does) is accepted. Its `exports.WorkspaceServiceProxy`
 * is checked when the backend is built.
 */
export type ShellHostContextInput = ShellHostContext | object;

export interface WorkerShellLoaderSource {
  type: "loader";
  loader: ShellWorkerLoaderLike;
  workspace: WorkspaceRef;
  /** Anything, as in the original; its `exports.WorkspaceServiceProxy` is checked when the backend is built. */
  ctx: unknown;
}

/** A shell runtime the host provides itself (tests, another process); the backend never disposes it. */
export interface WorkerShellExternalSource {
  type: "external-runtime";
  connect(options: { egress: WorkerShellEgress }): WorkerShellRuntime | Promise<WorkerShellRuntime>;
}

export type WorkerShellSource = WorkerShellLoaderSource | WorkerShellExternalSource;

interface CommonOptions {
  /** Backend id in `workspace.runtime` (default `"worker-shell"`). */
  id?: string;
  egress?: WorkerShellEgress;
  /** Optional command groups, e.g. `import curl from "@cloudflare/computer/shell/curl"`. */
  commands?: readonly ShellModuleGroup[];
  /** Prefix of the Dynamic Worker's loader id (default `workspace-shell:<workspace id>`). */
  loaderId?: string;
  compatibilityDate?: string;
  /** Appended to `["nodejs_compat"]`. */
  compatibilityFlags?: readonly string[];
}

/**
 * Either `source`, or all of `loader`, `workspace` and `ctx` (checked when
 * the backend is built, with a message naming what is missing). One flat
 * type, all optional, as the original declares it, so its option objects fit.
 */
export interface WorkerShellOptions extends CommonOptions {
  source?: WorkerShellSource;
  /** `env.LOADER`, a `worker_loaders` binding. */
  loader?: ShellWorkerLoaderLike;
  /** The Durable Object whose Workspace the shell works on. */
  workspace?: WorkspaceRef;
  /** The host's `ctx` (a `DurableObjectState`); its `exports.WorkspaceServiceProxy` is used. */
  ctx?: unknown;
}

export interface ResolvedShellOptions {
  id: string;
  source: WorkerShellSource;
  egress: WorkerShellEgress;
  commands: readonly ShellModuleGroup[];
  loaderId: string | undefined;
  compatibilityDate: string;
  compatibilityFlags: string[];
}

function fail(message: string): never {
  throw new TypeError(`WorkerShellBackend: ${message}`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function checkLoaderParts(where: string, loader: unknown, workspace: unknown, ctx: unknown): void {
  const missing = [
    isObject(loader) && typeof loader.get === "function" ? undefined : "loader (env.LOADER, a worker_loaders binding)",
    isObject(workspace) &&
    typeof workspace.binding === "string" &&
    workspace.binding !== "" &&
    typeof workspace.id === "string" &&
    workspace.id !== ""
      ? undefined
      : "workspace ({ binding, id } of the Durable Object)",
    isObject(ctx) && isObject(ctx.exports) && typeof ctx.exports.WorkspaceServiceProxy === "function"
      ? undefined
      : "ctx (whose main module re-exports WorkspaceServiceProxy)",
  ].filter((part): part is string => part !== undefined);
  if (missing.length > 0) fail(`${where} needs ${missing.join(", ")}`);
}

function checkEgress(egress: unknown): WorkerShellEgress {
  if (egress === undefined) return { mode: "none" };
  if (!isObject(egress)) fail("egress must be { mode: 'none' | 'direct' | 'http-gateway' }");
  if (egress.mode === "none" || egress.mode === "direct") return { mode: egress.mode };
  if (egress.mode !== "http-gateway") fail(`unknown egress mode ${JSON.stringify(egress.mode)}`);
  if (!isObject(egress.gateway) || typeof egress.gateway.fetch !== "function") {
    fail("egress http-gateway needs a gateway with fetch()");
  }
  if (egress.revision !== undefined && (typeof egress.revision !== "string" || egress.revision === "")) {
    fail("egress revision must be a non-empty string");
  }
  return egress as WorkerShellEgress;
}

export function resolveShellOptions(options: WorkerShellOptions): ResolvedShellOptions {
  if (!isObject(options as unknown)) fail("options are required");
  const raw = options as Record<string, unknown>;
  let source: WorkerShellSource;
  if (raw.source !== undefined) {
    const mixed = ["loader", "workspace", "ctx"].filter((key) => raw[key] !== undefined);
    if (mixed.length > 0) fail(`give either source or ${mixed.join("/")}, not both`);
    const given = raw.source;
    if (!isObject(given)) fail("source must be an object");
    if (given.type === "loader") checkLoaderParts("source", given.loader, given.workspace, given.ctx);
    else if (given.type === "external-runtime") {
      if (typeof given.connect !== "function") fail("an external-runtime source needs connect({ egress })");
    } else fail(`unknown source type ${JSON.stringify(given.type)}`);
    source = given as unknown as WorkerShellSource;
  } else {
    checkLoaderParts("options", raw.loader, raw.workspace, raw.ctx);
    source = { type: "loader", ...(options as Omit<WorkerShellLoaderSource, "type">) };
  }
  const id = options.id ?? WORKER_SHELL_ID;
  if (typeof id !== "string" || id === "") fail("id must be a non-empty string");
  const commands = options.commands ?? [];
  if (!Array.isArray(commands) || commands.some((group) => !isObject(group))) {
    fail("commands must be an array of command groups (import from @cloudflare/computer/shell/<group>)");
  }
  if (options.loaderId !== undefined && (typeof options.loaderId !== "string" || options.loaderId === "")) {
    fail("loaderId must be a non-empty string");
  }
  const compatibilityDate = options.compatibilityDate ?? WORKER_SHELL_COMPATIBILITY_DATE;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(compatibilityDate)) fail("compatibilityDate must be YYYY-MM-DD");
  const flags = options.compatibilityFlags ?? [];
  if (!Array.isArray(flags) || flags.some((flag) => typeof flag !== "string")) {
    fail("compatibilityFlags must be an array of strings");
  }
  return {
    id,
    source,
    egress: checkEgress(options.egress),
    commands,
    loaderId: options.loaderId,
    compatibilityDate,
    compatibilityFlags: ["nodejs_compat", ...flags.filter((flag) => flag !== "nodejs_compat")],
  };
}

/** The egress part of the loader id: a Worker's `globalOutbound` is fixed when it is created. */
export function egressKey(egress: WorkerShellEgress, instanceRevision: string): string {
  if (egress.mode === "http-gateway") return `egress-http-gateway-${egress.revision ?? instanceRevision}`;
  return `egress-${egress.mode}`;
}

/** `globalOutbound` for the Worker code: null blocks every fetch; absent means the runtime default. */
export function outboundFor(egress: WorkerShellEgress): Pick<ShellWorkerCode, "globalOutbound"> {
  if (egress.mode === "none") return { globalOutbound: null };
  if (egress.mode === "http-gateway") return { globalOutbound: egress.gateway };
  return {};
}

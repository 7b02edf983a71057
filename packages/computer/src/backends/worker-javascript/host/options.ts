/**
 * `WorkerJavaScriptBackend`'s options, their defaults and limits, and the
 * one function that validates them. The structural types (`WorkerLoaderLike`,
 * `FetcherLike`) keep this file runtime-neutral: `env.LOADER` and a service
 * binding satisfy them in workerd.
 */

import { parseModules } from "../../../modules/parse.js";
import type { WorkspaceModule, WorkspaceModuleFactory } from "../../../modules/types.js";
import type { WorkspaceRuntimeValue } from "../../../runtime/types.js";

/** What a module in the Dynamic Worker is made of; the loader's own type is wider. */
export interface LoaderModule {
  js: string;
}

/** The part of the loader's `WorkerLoaderWorkerCode` this backend fills in (a supertype of it). */
export interface LoaderWorkerCode {
  compatibilityDate: string;
  compatibilityFlags?: string[];
  limits?: { cpuMs?: number };
  mainModule: string;
  // Looser than what this backend sends so that the loader's own (wider) type is assignable.
  modules: Record<string, { js?: string } | string>;
  env?: unknown;
  globalOutbound?: FetcherLike | null;
}

/** The per-entrypoint options of a loaded worker: 0.8.0 passes the run's CPU limit here. */
export interface LoaderEntrypointOptions {
  limits?: { cpuMs?: number };
}

/** `env.LOADER` (a `worker_loaders` binding). */
export interface WorkerLoaderLike {
  load(code: LoaderWorkerCode): { getEntrypoint(name?: string, options?: LoaderEntrypointOptions): unknown };
}

/** A service binding or `ctx.exports.SomeEntrypoint()`: something fetch() can be sent to. */
export interface FetcherLike {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

export type WorkerJavaScriptEgress =
  | { mode: "none" }
  | { mode: "direct" }
  | { mode: "http-gateway"; gateway: FetcherLike; revision?: string };

/** Passed to every function of a host-defined `ws:<name>` module. */
export interface TrustedCallContext {
  /** Aborted when the execution is canceled or the call runs past `deadline`. */
  signal: AbortSignal;
  /** Epoch ms after which the call is abandoned (`maxHostCallMs`). */
  deadline: number;
}

export type TrustedFunction = (input: unknown, context: TrustedCallContext) => unknown;

/** The functions of one `ws:<name>` module; names must be JavaScript identifiers. */
export type TrustedModule = Readonly<Record<string, TrustedFunction>>;

/**
 * The original's form of a host module, given under its full specifier
 * (`trustedModules: { "ws:kv": { call(method, args, context) } }`). The
 * sandbox imports `{ call }` from it and calls `call("get", a, b)`; every
 * argument and the result are JSON-plain values.
 */
export interface WorkspaceTrustedModule {
  call(method: string, args: WorkspaceRuntimeValue[], context?: TrustedCallContext): Promise<WorkspaceRuntimeValue>;
}

/** A trusted module after validation: ours (named functions) or the original's (one `call` dispatcher). */
export type ResolvedTrustedModule =
  | { form: "functions"; functions: TrustedModule }
  | { form: "call"; module: WorkspaceTrustedModule };

/**
 * `trustedModules` typed by key: a `ws:<name>` key holds the original's
 * `{ call }` dispatcher, any other key our named functions. Written as a
 * mapped type over the keys given (`Names`, inferred from the literal) so a
 * function of ours named `call` still gets its parameter types; a plain
 * `string` key (a `Record<string, …>` built elsewhere) may hold either form.
 */
export type TrustedModules<Names extends string = string> = {
  readonly [Key in Names]: Key extends `ws:${string}`
    ? WorkspaceTrustedModule
    : string extends Key
      ? TrustedModule | WorkspaceTrustedModule
      : TrustedModule;
};

/** `Names` is the keys of `trustedModules`, inferred where the options are written; see `TrustedModules`. */
export interface WorkerJavaScriptOptions<Names extends string = string> {
  /** The Worker Loader binding (`worker_loaders` in wrangler config). */
  loader: WorkerLoaderLike;
  /** Default `"worker-javascript"`. */
  id?: string;
  /** Directory every path and import is confined to. Default `/workspace`. */
  root?: string;
  /** `"read"` blocks every mutation (fs writes, git clone/cli, artifacts create/import/delete). */
  access?: "read-write" | "read";
  /**
   * What code may import besides its own files (0.8.0's shape): a bare name → ES module source (a
   * bundled library), or `ws:<name>` → a host module (an object of functions, or a factory of one,
   * such as `createGitModule()`), whose functions run in the Durable Object. While no `ws:` module is
   * given, `ws:git` and `ws:artifacts` stay installed as in 0.2.1.
   */
  modules?: Readonly<Record<string, WorkspaceModule>>;
  /**
   * Host modules importable as `ws:<name>`: `{ name: { fn(input, context) } }`
   * (one export per function), or the original's `{ "ws:name": { call } }`.
   */
  trustedModules?: TrustedModules<Names>;
  egress?: WorkerJavaScriptEgress;
  /** Legacy spelling of `egress`: `null` is `none`, a Fetcher is `http-gateway`. Not together with `egress`. */
  globalOutbound?: FetcherLike | null;
  allowGitNetwork?: boolean;
  allowArtifactNetwork?: boolean;
  /** YYYY-MM-DD; must not be newer than the workerd running the host. */
  compatibilityDate?: string;
  /** Appended to `["nodejs_compat"]`. */
  compatibilityFlags?: readonly string[];
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  maxHostCallMs?: number;
  maxSourceBytes?: number;
  maxInputBytes?: number;
  maxEnvBytes?: number;
  maxResultBytes?: number;
  /** stdout and stderr together. */
  maxStdioBytes?: number;
  maxStdinBytes?: number;
  /** Per capability call, each direction. At least 256. */
  maxCapabilityBytes?: number;
  maxConcurrentCapabilityCalls?: number;
  /** Capability calls per execution. */
  maxCapabilityCalls?: number;
  /** All capability requests of one execution together. */
  maxCapabilityRequestBytes?: number;
  maxCapabilityResponseBytes?: number;
  maxDirEntries?: number;
  /** The original's name of `maxDirEntries`. */
  maxDirectoryEntries?: number;
  maxConcurrentExecutions?: number;
  /** Readers of one execution's events at a time. */
  maxSubscribers?: number;
  /** The original's name of `maxSubscribers`. */
  maxExecutionSubscribers?: number;
  /** Finished executions are kept this long… */
  retentionMs?: number;
  /** …and at most this many. */
  maxRetainedExecutions?: number;
}

const MiB = 1024 * 1024;

export const WORKER_JAVASCRIPT_DEFAULTS = {
  id: "worker-javascript",
  root: "/workspace",
  access: "read-write",
  // The reference's default. It must not be newer than the workerd that runs the host (docs/toolchain.md).
  compatibilityDate: "2026-05-23",
  maxTimeoutMs: 180_000,
  /** The default timeout is min(this, maxTimeoutMs). */
  defaultTimeoutMs: 60_000,
  maxSourceBytes: MiB,
  maxInputBytes: MiB,
  maxEnvBytes: MiB,
  maxResultBytes: MiB,
  maxStdioBytes: MiB,
  maxStdinBytes: 256 * 1024,
  maxCapabilityBytes: MiB,
  maxConcurrentCapabilityCalls: 32,
  maxCapabilityCalls: 256,
  maxCapabilityRequestBytes: 8 * MiB,
  maxCapabilityResponseBytes: 8 * MiB,
  maxDirEntries: 1024,
  maxConcurrentExecutions: 24,
  maxSubscribers: 8,
  retentionMs: 60 * 60_000,
  maxRetainedExecutions: 100,
} as const;

/** Graph limits that are not options. */
export const MAX_MODULES = 128;
export const MAX_IMPORT_DEPTH = 32;
export const MAX_LOADER_MODULES = 256;
export const MIN_CAPABILITY_BYTES = 256;

export interface ResolvedOptions {
  loader: WorkerLoaderLike;
  id: string;
  root: string;
  access: "read-write" | "read";
  /** The bundled libraries of `modules`. */
  modules: Readonly<Record<string, string>>;
  /** The host modules of `modules`, by specifier (`ws:x`); an object of functions is wrapped in a factory. */
  hostModules: ReadonlyMap<string, WorkspaceModuleFactory>;
  /** `ws:git` and `ws:artifacts` built in, as 0.2.1 has them: only while `modules` names no host module. */
  builtInHostModules: boolean;
  /** One markdown line per configured module, for the backend's description. */
  describeModules(): string[];
  /** By the name after `ws:`. */
  trustedModules: Readonly<Record<string, ResolvedTrustedModule>>;
  egress: WorkerJavaScriptEgress;
  allowGitNetwork: boolean;
  allowArtifactNetwork: boolean;
  compatibilityDate: string;
  compatibilityFlags: string[];
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxHostCallMs: number;
  maxSourceBytes: number;
  maxInputBytes: number;
  maxEnvBytes: number;
  maxResultBytes: number;
  maxStdioBytes: number;
  maxStdinBytes: number;
  maxCapabilityBytes: number;
  maxConcurrentCapabilityCalls: number;
  maxCapabilityCalls: number;
  maxCapabilityRequestBytes: number;
  maxCapabilityResponseBytes: number;
  maxDirEntries: number;
  maxConcurrentExecutions: number;
  maxSubscribers: number;
  retentionMs: number;
  maxRetainedExecutions: number;
}

const COUNT_OPTIONS = [
  "maxTimeoutMs",
  "defaultTimeoutMs",
  "maxHostCallMs",
  "maxSourceBytes",
  "maxInputBytes",
  "maxEnvBytes",
  "maxResultBytes",
  "maxStdioBytes",
  "maxStdinBytes",
  "maxCapabilityBytes",
  "maxConcurrentCapabilityCalls",
  "maxCapabilityCalls",
  "maxCapabilityRequestBytes",
  "maxCapabilityResponseBytes",
  "maxDirEntries",
  "maxConcurrentExecutions",
  "maxSubscribers",
  "retentionMs",
  "maxRetainedExecutions",
] as const;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const TRUSTED_NAME = /^[a-z][a-z0-9-]*$/;
/** The name after `ws:` in the original's form, as its own check has it. */
const TRUSTED_SPECIFIER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const BUILT_IN_TRUSTED = new Set(["git", "artifacts"]);

/** The original's names of two limits, taken when ours is not given. */
const RENAMED_OPTIONS = [
  ["maxDirEntries", "maxDirectoryEntries"],
  ["maxSubscribers", "maxExecutionSubscribers"],
] as const;

function resolveTrustedModules(
  given: Readonly<Record<string, TrustedModule | WorkspaceTrustedModule>>,
): Record<string, ResolvedTrustedModule> {
  if (typeof given !== "object" || given === null) {
    throw new TypeError("WorkerJavaScriptBackend: trustedModules must be an object");
  }
  const resolved: Record<string, ResolvedTrustedModule> = {};
  for (const [key, module] of Object.entries(given)) {
    if (key.startsWith("ws:")) {
      const name = key.slice(3);
      if (!TRUSTED_SPECIFIER_NAME.test(name) || BUILT_IN_TRUSTED.has(name)) {
        throw new TypeError(
          `WorkerJavaScriptBackend: trusted module ${JSON.stringify(key)} must be ws:<name> with <name> matching ${TRUSTED_SPECIFIER_NAME} and not git or artifacts`,
        );
      }
      if (typeof (module as Partial<WorkspaceTrustedModule> | null)?.call !== "function") {
        throw new TypeError(
          `WorkerJavaScriptBackend: trusted module ${JSON.stringify(key)} needs call(method, args, context)`,
        );
      }
      if (Object.hasOwn(resolved, name)) {
        throw new TypeError(`WorkerJavaScriptBackend: trusted module ws:${name} is given twice`);
      }
      resolved[name] = { form: "call", module: module as WorkspaceTrustedModule };
      continue;
    }
    if (!TRUSTED_NAME.test(key) || BUILT_IN_TRUSTED.has(key)) {
      throw new TypeError(
        `WorkerJavaScriptBackend: trusted module name ${JSON.stringify(key)} must match ${TRUSTED_NAME} and not be git or artifacts (or be the original's "ws:<name>" with call())`,
      );
    }
    for (const [method, fn] of Object.entries(module)) {
      if (!IDENTIFIER.test(method) || method === "default" || typeof fn !== "function") {
        throw new TypeError(`WorkerJavaScriptBackend: ws:${key}.${method} must be a function with an identifier name`);
      }
    }
    if (Object.hasOwn(resolved, key)) {
      throw new TypeError(`WorkerJavaScriptBackend: trusted module ws:${key} is given twice`);
    }
    resolved[key] = { form: "functions", functions: module as TrustedModule };
  }
  return resolved;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`WorkerJavaScriptBackend: ${name} must be a positive integer; got ${String(value)}`);
  }
  return value;
}

function resolveEgress(options: WorkerJavaScriptOptions): WorkerJavaScriptEgress {
  const hasOutbound = Object.hasOwn(options, "globalOutbound") && options.globalOutbound !== undefined;
  if (options.egress !== undefined && hasOutbound) {
    throw new TypeError("WorkerJavaScriptBackend: pass egress or globalOutbound, not both");
  }
  if (hasOutbound) {
    return options.globalOutbound === null
      ? { mode: "none" }
      : { mode: "http-gateway", gateway: options.globalOutbound as FetcherLike };
  }
  const egress = options.egress ?? { mode: "none" };
  if (egress.mode === "http-gateway" && typeof egress.gateway?.fetch !== "function") {
    throw new TypeError('WorkerJavaScriptBackend: egress { mode: "http-gateway" } needs a gateway with fetch()');
  }
  if (!["none", "direct", "http-gateway"].includes(egress.mode)) {
    throw new TypeError(`WorkerJavaScriptBackend: unknown egress mode ${JSON.stringify(egress.mode)}`);
  }
  return egress;
}

export function resolveOptions(options: WorkerJavaScriptOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("new WorkerJavaScriptBackend(options) needs an options object with loader");
  }
  if (typeof options.loader?.load !== "function") {
    throw new TypeError("WorkerJavaScriptBackend needs loader: the Worker Loader binding (env.LOADER)");
  }
  const counts = {} as Record<(typeof COUNT_OPTIONS)[number], number>;
  const maxTimeoutMs = options.maxTimeoutMs ?? WORKER_JAVASCRIPT_DEFAULTS.maxTimeoutMs;
  for (const name of COUNT_OPTIONS) {
    const fallback =
      name === "defaultTimeoutMs"
        ? Math.min(WORKER_JAVASCRIPT_DEFAULTS.defaultTimeoutMs, maxTimeoutMs)
        : name === "maxHostCallMs"
          ? maxTimeoutMs
          : WORKER_JAVASCRIPT_DEFAULTS[name];
    counts[name] = positive(name, options[name] ?? fallback);
  }
  for (const [ours, theirs] of RENAMED_OPTIONS) {
    const value = options[theirs];
    if (value === undefined) continue;
    if (options[ours] !== undefined) {
      throw new TypeError(`WorkerJavaScriptBackend: pass ${ours} or ${theirs} (its other name), not both`);
    }
    counts[ours] = positive(theirs, value);
  }
  if (counts.defaultTimeoutMs > counts.maxTimeoutMs) {
    throw new TypeError(
      `WorkerJavaScriptBackend: defaultTimeoutMs (${counts.defaultTimeoutMs}) is larger than maxTimeoutMs (${counts.maxTimeoutMs})`,
    );
  }
  if (counts.maxCapabilityBytes < MIN_CAPABILITY_BYTES) {
    throw new TypeError(`WorkerJavaScriptBackend: maxCapabilityBytes must be at least ${MIN_CAPABILITY_BYTES}`);
  }
  const root = options.root ?? WORKER_JAVASCRIPT_DEFAULTS.root;
  if (typeof root !== "string" || !root.startsWith("/") || root.split("/").some((s) => s === ".." || s === ".")) {
    throw new TypeError(`WorkerJavaScriptBackend: root must be an absolute path without . or ..; got ${String(root)}`);
  }
  const access = options.access ?? WORKER_JAVASCRIPT_DEFAULTS.access;
  if (access !== "read" && access !== "read-write") {
    throw new TypeError(`WorkerJavaScriptBackend: access must be "read" or "read-write"; got ${String(access)}`);
  }
  const compatibilityDate = options.compatibilityDate ?? WORKER_JAVASCRIPT_DEFAULTS.compatibilityDate;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(compatibilityDate)) {
    throw new TypeError(`WorkerJavaScriptBackend: compatibilityDate must be YYYY-MM-DD; got ${compatibilityDate}`);
  }
  const parsed = parseModules(options.modules ?? {});
  const trustedModules = resolveTrustedModules(options.trustedModules ?? {});
  for (const specifier of parsed.host.keys()) {
    if (Object.hasOwn(trustedModules, specifier.slice(3))) {
      throw new TypeError(`WorkerJavaScriptBackend: ${specifier} is given in both modules and trustedModules`);
    }
  }
  const id = options.id ?? WORKER_JAVASCRIPT_DEFAULTS.id;
  if (typeof id !== "string" || id === "")
    throw new TypeError("WorkerJavaScriptBackend: id must be a non-empty string");
  return {
    loader: options.loader,
    id,
    root: root.length > 1 && root.endsWith("/") ? root.slice(0, -1) : root,
    access,
    modules: parsed.libraries,
    hostModules: parsed.host,
    builtInHostModules: parsed.host.size === 0,
    describeModules: parsed.describe,
    trustedModules,
    egress: resolveEgress(options),
    allowGitNetwork: options.allowGitNetwork === true,
    allowArtifactNetwork: options.allowArtifactNetwork === true,
    compatibilityDate,
    compatibilityFlags: ["nodejs_compat", ...(options.compatibilityFlags ?? [])],
    ...counts,
  };
}

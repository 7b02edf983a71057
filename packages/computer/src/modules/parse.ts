/**
 * Reading the `modules` option of worker-javascript the way 0.8.0 does: each
 * specifier and each object's export names are checked in the constructor
 * (a wrong configuration fails before any run), a factory's export names when
 * it is called at connect. The messages are the original's, since code and
 * tests match on them.
 */
import type { WorkspaceModule, WorkspaceModuleFactory, WorkspaceModuleFunctions } from "./types.js";

/** Always installed, never replaceable. */
const BUILT_IN = new Set(["node:fs", "node:fs/promises"]);
/** `ws:` and a simple name, alphanumeric first. */
const HOST_SPECIFIER = /^ws:[A-Za-z0-9][A-Za-z0-9._-]*$/;
const EXPORT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `default` is the module object itself; `then` would make the module namespace a thenable. */
const RESERVED_EXPORTS = new Set(["default", "then"]);

/** The runner's own modules live under `__…` names, and `.`-names would read as relative. */
export function isInternalModuleName(name: string): boolean {
  return name.startsWith("__") || name.startsWith(".");
}

export interface ParsedModules {
  /** Bundled libraries by bare name. */
  readonly libraries: Readonly<Record<string, string>>;
  /** Host modules by specifier (`ws:x`), each a factory (an object is wrapped in one). */
  readonly host: ReadonlyMap<string, WorkspaceModuleFactory>;
  /** One markdown bullet per module, for a model (a factory's description is read when asked). */
  describe(): string[];
}

export function assertHostModuleExports(
  specifier: string,
  functions: unknown,
): asserts functions is WorkspaceModuleFunctions {
  if (functions === null || typeof functions !== "object" || Array.isArray(functions)) {
    throw new Error(`Host module ${JSON.stringify(specifier)} must build an object of functions.`);
  }
  const names = Object.keys(functions);
  if (names.length === 0) throw new Error(`Host module ${JSON.stringify(specifier)} must export a function.`);
  for (const name of names) {
    if (!EXPORT_NAME.test(name) || RESERVED_EXPORTS.has(name)) {
      throw new Error(
        `Host module ${JSON.stringify(specifier)} export ${JSON.stringify(name)} must be a JavaScript identifier other than "default" or "then".`,
      );
    }
    if (typeof (functions as Record<string, unknown>)[name] !== "function") {
      throw new Error(`Host module ${JSON.stringify(specifier)} export ${JSON.stringify(name)} must be a function.`);
    }
  }
}

export function parseModules(modules: Readonly<Record<string, WorkspaceModule>>): ParsedModules {
  if (modules === null || typeof modules !== "object" || Array.isArray(modules)) {
    throw new TypeError("WorkerJavaScriptBackend: modules must be an object of specifier → module");
  }
  const libraries: Record<string, string> = Object.create(null);
  const host = new Map<string, WorkspaceModuleFactory>();
  const lines: (string | (() => string))[] = [];
  for (const [specifier, module] of Object.entries(modules)) {
    const label = `\`${specifier}\``;
    if (BUILT_IN.has(specifier))
      throw new Error(`Module ${JSON.stringify(specifier)} is built in and cannot be replaced.`);
    if (typeof module === "string") {
      if (specifier.startsWith("ws:")) {
        throw new Error(`Module ${JSON.stringify(specifier)} uses the ws:* namespace, which is only for host modules.`);
      }
      if (specifier === "" || specifier.includes("/") || isInternalModuleName(specifier)) {
        throw new Error(`Module ${JSON.stringify(specifier)} uses a reserved module name.`);
      }
      libraries[specifier] = module;
      lines.push(`- ${label}: a bundled library.`);
      continue;
    }
    if (!HOST_SPECIFIER.test(specifier)) {
      throw new Error(`Host module ${JSON.stringify(specifier)} must use a simple ws:* name, such as "ws:git".`);
    }
    if (typeof module === "function") {
      const factory = module as WorkspaceModuleFactory;
      host.set(specifier, factory);
      lines.push(() => `- ${label}: ${factory.description ?? "a host module."}`);
      continue;
    }
    if (module === null || typeof module !== "object" || Array.isArray(module)) {
      throw new Error(`Module ${JSON.stringify(specifier)} must be source text, an object of functions, or a factory.`);
    }
    assertHostModuleExports(specifier, module);
    const functions = module;
    host.set(specifier, () => functions);
    lines.push(
      `- ${label}: exports ${Object.keys(functions)
        .map((name) => `\`${name}\``)
        .join(", ")}.`,
    );
  }
  return { libraries, host, describe: () => lines.map((line) => (typeof line === "string" ? line : line())) };
}

/**
 * The module graph, built on the host before any Worker exists. Starting from
 * the source (a synthetic entry module in the cwd), every import is parsed
 * with acorn and resolved here, then rewritten to an absolute module name
 * the Dynamic Worker's module map holds. Nothing the Worker imports is left
 * for it to resolve, so these rules are the whole import policy:
 *
 * - `./` and `../` imports read from the durable workspace, confined to the
 *   root, never through a symlink;
 * - absolute and URL imports are refused;
 * - bare names must be configured `modules` or Node built-ins (nodejs_compat);
 *   `node:fs`, `node:fs/promises`, `ws:git`, `ws:artifacts` and `ws:<trusted>`
 *   map to the runner's modules, a host module `ws:<name>` to a generated one;
 * - a dynamic `import()` needs a string literal;
 * - at most 128 modules, 32 levels deep, `maxSourceBytes` in all.
 */

import { isFsError, type WorkspaceFilesystem } from "@cloudflare/dofs";
import { type ImportExpression, type Node, parse } from "acorn";
import { hasNodeCompat, nodeBuiltin } from "../../../modules/node-builtins.js";
import { WorkspaceError } from "../../../runtime/errors.js";
import {
  ARTIFACTS_MODULE,
  FS_MODULE,
  FS_PROMISES_MODULE,
  GIT_MODULE,
  HOST_MODULE_PREFIX,
  INTERNAL_PREFIX,
  LIBRARY_PREFIX,
} from "../protocol/messages.js";
import { utf8Length } from "../protocol/stdio.js";
import { MAX_IMPORT_DEPTH, MAX_LOADER_MODULES, MAX_MODULES, type ResolvedOptions } from "./options.js";
import { assertNoSymlinks, dirnameOf, isAtOrUnder, resolvePath } from "./paths.js";

/** The synthetic entry's file name inside the cwd. */
export const ENTRY_NAME = "__entry.js";

export interface ModuleGraph {
  /** Module name → source, user modules and libraries only (the runner adds its own). */
  modules: Record<string, string>;
  /** Absolute specifier of the entry (`/workspace/__entry.js`). */
  entry: string;
}

interface PendingModule {
  /** Absolute path for workspace files; `undefined` for libraries. */
  path: string | undefined;
  name: string;
  source: string;
  depth: number;
}

function moduleError(message: string): WorkspaceError {
  return new WorkspaceError("EMODULE", `worker-javascript: ${message}`);
}

/** Every specifier node in a module: static imports, re-exports and `import()`. */
function specifiers(program: Node, where: string): Array<{ start: number; end: number; value: string }> {
  const found: Array<{ start: number; end: number; value: string }> = [];
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const typed = node as Node & { source?: Node & { value?: unknown } };
    if (
      typed.type === "ImportDeclaration" ||
      typed.type === "ExportAllDeclaration" ||
      (typed.type === "ExportNamedDeclaration" && typed.source)
    ) {
      const source = typed.source as Node & { value: string };
      found.push({ start: source.start, end: source.end, value: source.value });
    } else if (typed.type === "ImportExpression") {
      const source = (typed as unknown as ImportExpression).source as Node & {
        value?: unknown;
        expressions?: unknown[];
        quasis?: Array<{ value: { cooked: string } }>;
      };
      if (source.type === "Literal" && typeof source.value === "string") {
        found.push({ start: source.start, end: source.end, value: source.value });
      } else if (source.type === "TemplateLiteral" && source.expressions?.length === 0 && source.quasis?.[0]) {
        found.push({ start: source.start, end: source.end, value: source.quasis[0].value.cooked });
      } else {
        throw moduleError(`${where}: import() needs a string literal; a computed specifier cannot be checked`);
      }
    }
    for (const [key, child] of Object.entries(typed)) {
      if (key !== "source" || typed.type === "ImportExpression") visit(child);
    }
  };
  visit(program);
  return found;
}

export class GraphBuilder {
  readonly #fs: WorkspaceFilesystem;
  readonly #options: ResolvedOptions;
  readonly #hostExports: ReadonlyMap<string, readonly string[]>;
  readonly #modules: Record<string, string> = {};
  #count = 0;
  #bytes = 0;

  /**
   * `hostExports`: the export names of each connected host module, by the name after `ws:`
   * (the functions themselves stay in the Durable Object).
   */
  constructor(
    fs: WorkspaceFilesystem,
    options: ResolvedOptions,
    hostExports: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {
    this.#fs = fs;
    this.#options = options;
    this.#hostExports = hostExports;
  }

  async build(source: string, cwd: string): Promise<ModuleGraph> {
    const root = this.#options.root;
    if (!isAtOrUnder(cwd, root)) throw moduleError(`cwd ${cwd} is outside the root ${root}`);
    const entryPath = cwd === "/" ? `/${ENTRY_NAME}` : `${cwd}/${ENTRY_NAME}`;
    const queue: PendingModule[] = [{ path: entryPath, name: entryPath.slice(1), source, depth: 0 }];
    this.#account(entryPath, source);
    for (let next = queue.shift(); next; next = queue.shift()) {
      this.#modules[next.name] = await this.#rewrite(next, queue);
    }
    if (this.#count + 8 > MAX_LOADER_MODULES) throw moduleError(`more than ${MAX_LOADER_MODULES} loader modules`);
    return { modules: this.#modules, entry: `/${entryPath.slice(1)}` };
  }

  #account(where: string, source: string): void {
    this.#count += 1;
    this.#bytes += utf8Length(source);
    if (this.#count > MAX_MODULES) throw moduleError(`more than ${MAX_MODULES} modules (at ${where})`);
    if (this.#bytes > this.#options.maxSourceBytes) {
      throw moduleError(`module sources exceed maxSourceBytes (${this.#options.maxSourceBytes} bytes) at ${where}`);
    }
  }

  async #rewrite(module: PendingModule, queue: PendingModule[]): Promise<string> {
    const where = module.path ?? module.name;
    let program: Node;
    try {
      program = parse(module.source, { ecmaVersion: "latest", sourceType: "module", locations: false });
    } catch (error) {
      throw moduleError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const edits = specifiers(program, where).sort((a, b) => b.start - a.start);
    let text = module.source;
    for (const edit of edits) {
      const target = await this.#resolve(edit.value, module, queue);
      text = `${text.slice(0, edit.start)}${JSON.stringify(target)}${text.slice(edit.end)}`;
    }
    return text;
  }

  /** Returns the absolute specifier the import becomes; queues modules seen for the first time. */
  async #resolve(specifier: string, from: PendingModule, queue: PendingModule[]): Promise<string> {
    const where = from.path ?? from.name;
    switch (specifier) {
      case "node:fs/promises":
        return `/${FS_PROMISES_MODULE}`;
      case "node:fs":
        return `/${FS_MODULE}`;
      default:
        break;
    }
    if (specifier.startsWith("ws:")) {
      const name = specifier.slice(3);
      const exports = this.#hostExports.get(name);
      if (exports !== undefined) return this.#host(name, exports, where);
      if (Object.hasOwn(this.#options.trustedModules, name)) return this.#trusted(name);
      if (this.#options.builtInHostModules && name === "git") return `/${GIT_MODULE}`;
      if (this.#options.builtInHostModules && name === "artifacts") return `/${ARTIFACTS_MODULE}`;
      if (this.#options.builtInHostModules) {
        throw moduleError(`${where}: "${specifier}" is not a trusted module of this Workspace`);
      }
      throw moduleError(
        `Module ${JSON.stringify(specifier)} is not configured. Add it to the backend's modules option.`,
      );
    }
    if (specifier.startsWith("./") || specifier.startsWith("../")) {
      if (from.path === undefined) throw moduleError(`library "${from.name}" cannot import relative "${specifier}"`);
      return this.#relative(specifier, from, queue);
    }
    if (specifier.startsWith("/")) throw moduleError(`${where}: absolute import "${specifier}" is not allowed; use ./`);
    if (Object.hasOwn(this.#options.modules, specifier)) return this.#library(specifier, from, queue);
    // The loader resolves `node:*` itself under nodejs_compat; the bare name is given its prefix.
    const builtin = hasNodeCompat(this.#options.compatibilityFlags) ? nodeBuiltin(specifier) : undefined;
    if (builtin !== undefined) return builtin;
    throw moduleError(
      `${where}: bare import "${specifier}" is not a configured module (configured: ${
        Object.keys(this.#options.modules).join(", ") || "none"
      })`,
    );
  }

  async #relative(specifier: string, from: PendingModule, queue: PendingModule[]): Promise<string> {
    const where = from.path as string;
    const root = this.#options.root;
    let path: string;
    try {
      path = resolvePath(dirnameOf(where), specifier, "import");
    } catch {
      throw moduleError(`${where}: import "${specifier}" leaves the filesystem`);
    }
    if (!isAtOrUnder(path, root)) throw moduleError(`${where}: import "${specifier}" resolves outside ${root}`);
    const name = path.slice(1);
    if (name.split("/").some((segment) => segment.startsWith("__"))) {
      throw moduleError(`${where}: import "${specifier}" uses a reserved name (path segments starting with __)`);
    }
    if (Object.hasOwn(this.#modules, name) || queue.some((pending) => pending.name === name)) return `/${name}`;
    if (from.depth + 1 > MAX_IMPORT_DEPTH) throw moduleError(`${where}: imports nest deeper than ${MAX_IMPORT_DEPTH}`);
    let source: string;
    try {
      await assertNoSymlinks(this.#fs, path, "import", true);
      source = await this.#fs.readFile(path, "utf8");
    } catch (error) {
      if (isFsError(error, "ENOENT")) throw moduleError(`${where}: cannot find module "${specifier}" (${path})`);
      if (isFsError(error, "ELOOP")) throw moduleError(`${where}: import "${specifier}" goes through a symlink`);
      throw moduleError(
        `${where}: cannot read "${specifier}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.#account(path, source);
    queue.push({ path, name, source, depth: from.depth + 1 });
    return `/${name}`;
  }

  #library(specifier: string, from: PendingModule, queue: PendingModule[]): string {
    const name = `${LIBRARY_PREFIX}/${specifier}.js`;
    if (!Object.hasOwn(this.#modules, name) && !queue.some((pending) => pending.name === name)) {
      const source = this.#options.modules[specifier] as string;
      this.#account(specifier, source);
      queue.push({ path: undefined, name, source, depth: from.depth + 1 });
    }
    return `/${name}`;
  }

  /** A 0.8 host module: each export sends all its arguments, as one array, to the function in the Durable Object. */
  #host(name: string, exports: readonly string[], where: string): string {
    if (exports.length === 0) {
      throw moduleError(
        `${where}: module "ws:${name}" exports nothing on this backend: its factory built no functions when the backend connected.`,
      );
    }
    const moduleName = `${INTERNAL_PREFIX}/host/${name}.js`;
    if (!Object.hasOwn(this.#modules, moduleName)) {
      const target = JSON.stringify(`${HOST_MODULE_PREFIX}${name}`);
      const lines = [`import { call } from "/${INTERNAL_PREFIX}/bridge.js";`];
      for (const method of exports) {
        lines.push(`export const ${method} = (...args) => call(${target}, ${JSON.stringify(method)}, args);`);
      }
      // Named exports only, as 0.8.0 has them: `import * as m` lists exactly the functions.
      this.#modules[moduleName] = lines.join("\n");
    }
    return `/${moduleName}`;
  }

  /** A `ws:<name>` module: one exported function per host function, each a call through the bridge. */
  #trusted(name: string): string {
    const moduleName = `${INTERNAL_PREFIX}/trusted/${name}.js`;
    if (!Object.hasOwn(this.#modules, moduleName)) {
      const module = this.#options.trustedModules[name];
      const lines = [`import { trusted } from "/${INTERNAL_PREFIX}/bridge.js";`];
      if (module?.form === "call") {
        // The original's form: `call(method, ...args)`, all of it one argument to the host's dispatcher.
        lines.push(`const dispatch = trusted(${JSON.stringify(name)}, "call");`);
        lines.push("export const call = (method, ...args) => dispatch([method, ...args]);");
        lines.push("export default { call };");
      } else {
        const methods = Object.keys(module?.functions ?? {});
        for (const method of methods)
          lines.push(`export const ${method} = trusted(${JSON.stringify(name)}, "${method}");`);
        lines.push(`export default { ${methods.join(", ")} };`);
      }
      this.#modules[moduleName] = lines.join("\n");
    }
    return `/${moduleName}`;
  }
}

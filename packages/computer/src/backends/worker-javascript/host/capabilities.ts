/**
 * The host side of an execution's capabilities: the one function the
 * Dynamic Worker calls back (`HostFunction`). It routes `node:fs/promises`,
 * `ws:git`, `ws:artifacts` and host-defined `ws:<name>` calls under the
 * execution's limits (CallLimits) and answers with data, never a thrown
 * error, since workerd logs errors thrown across RPC as uncaught.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import { toShape, WorkspaceFsError } from "@cloudflare/dofs";
import type { GitCliResult, WorkspaceArtifacts, WorkspaceGit } from "../../../contracts/capabilities.js";
import type { WorkspaceRuntimeValue } from "../../../runtime/types.js";
import { type CapabilityReply, HOST_MODULE_PREFIX } from "../protocol/messages.js";
import { FsCapability } from "./fs-capability.js";
import type { HostCalls } from "./host-calls.js";
import type { CallLimits, CallTicket } from "./limits.js";
import type { ResolvedOptions } from "./options.js";
import { isAtOrUnder, outsideRoot, resolvePath } from "./paths.js";

/** Subcommands that reach the network; they need `allowGitNetwork`. */
const NETWORK_GIT = new Set(["clone", "fetch", "pull", "push", "ls-remote", "submodule"]);

export interface CapabilityContext {
  fs: WorkspaceFilesystem;
  options: ResolvedOptions;
  cwd: string;
  limits: CallLimits;
  git(): WorkspaceGit;
  artifacts(): WorkspaceArtifacts;
  /** The connected 0.8 host modules (`ws:<name>` in `modules`). */
  hostCalls?: HostCalls;
}

/** The typed artifacts client (`createArtifact`) has these; the seam only promises `cli`. */
interface ArtifactsMethods {
  create?(name: string, options?: unknown): Promise<unknown>;
  get?(name: string): Promise<unknown>;
  list?(options?: unknown): Promise<unknown>;
  import?(name: string, source: unknown, options?: unknown): Promise<unknown>;
  delete?(name: string): Promise<unknown>;
}

function readOnly(what: string): Error {
  return new WorkspaceFsError("EROFS", what, undefined, {
    detail: 'read-only file system (the backend has access: "read")',
  });
}

/** Every field a ws:git call's options may carry; each is checked where it is used. */
interface GitRequest {
  url?: unknown;
  dir?: unknown;
  depth?: unknown;
  branch?: unknown;
  args?: unknown;
  maxCount?: unknown;
  argv?: unknown;
  cwd?: unknown;
  env?: unknown;
  stdin?: unknown;
}

function record(value: unknown, name: string): GitRequest {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null) throw new TypeError(`${name} must be an object`);
  return value as GitRequest;
}

function strings(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new TypeError(`${name} must be an array of strings`);
  }
  return value as string[];
}

export class ExecutionCapabilities {
  readonly #context: CapabilityContext;
  readonly #fs: FsCapability;

  constructor(context: CapabilityContext) {
    this.#context = context;
    this.#fs = new FsCapability(context.fs, context.options, context.cwd);
  }

  /** One call from the Dynamic Worker; always resolves. */
  async handle(module: unknown, method: unknown, args: unknown): Promise<CapabilityReply> {
    try {
      if (typeof module !== "string" || typeof method !== "string" || !Array.isArray(args)) {
        throw new TypeError("malformed capability call");
      }
      const label = `${module}.${method}`;
      const value = await this.#context.limits.run(label, args, (ticket) =>
        this.#dispatch(module, method, args, ticket),
      );
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error: toShape(error) };
    }
  }

  #dispatch(module: string, method: string, args: unknown[], ticket: CallTicket): Promise<unknown> {
    if (module === "fs") return this.#fs.call(method, args);
    if (module === "git") return this.#git(method, args);
    if (module === "artifacts") return this.#artifacts(method, args);
    if (module.startsWith(HOST_MODULE_PREFIX) && this.#context.hostCalls) {
      return this.#context.hostCalls.call(module.slice(HOST_MODULE_PREFIX.length), method, args, ticket);
    }
    const trusted = this.#context.options.trustedModules[module];
    const context = { signal: ticket.signal, deadline: ticket.deadline };
    if (trusted?.form === "call") {
      const [name, ...rest] = Array.isArray(args[0]) ? args[0] : [];
      if (typeof name !== "string") throw new TypeError(`ws:${module} call needs a method name`);
      return trusted.module.call(name, rest as WorkspaceRuntimeValue[], context);
    }
    const functions = trusted?.functions;
    const fn = functions && Object.hasOwn(functions, method) ? functions[method] : undefined;
    if (!fn) throw new TypeError(`ws:${module} has no function ${method}`);
    return Promise.resolve(fn(args[0] ?? null, context));
  }

  #dir(raw: unknown, syscall: string): string {
    const { options, cwd } = this.#context;
    if (raw !== undefined && typeof raw !== "string") throw new TypeError(`${syscall}: dir must be a string`);
    const path = raw === undefined ? cwd : resolvePath(cwd, raw, syscall);
    if (!isAtOrUnder(path, options.root)) throw outsideRoot(syscall, path, options.root);
    return path;
  }

  #needsNetwork(what: string): void {
    if (!this.#context.options.allowGitNetwork) {
      throw new Error(`ws:git ${what} needs network access: set allowGitNetwork: true on WorkerJavaScriptBackend`);
    }
  }

  async #git(method: string, args: unknown[]): Promise<GitCliResult> {
    const { options } = this.#context;
    const request = record(args[0], `ws:git ${method} options`);
    switch (method) {
      case "clone": {
        if (options.access === "read") throw readOnly("git clone");
        this.#needsNetwork("clone");
        if (typeof request.url !== "string") throw new TypeError("ws:git clone needs url");
        const argv = ["clone"];
        if (typeof request.depth === "number") argv.push("--depth", String(request.depth));
        if (typeof request.branch === "string") argv.push("--branch", request.branch);
        argv.push(request.url);
        if (request.dir !== undefined) argv.push(this.#dir(request.dir, "git clone"));
        return this.#context.git().cli({ argv, cwd: this.#context.cwd });
      }
      case "status":
        return this.#context.git().cli({ argv: ["status", "--porcelain"], cwd: this.#dir(request.dir, "git status") });
      case "diff": {
        const extra = request.args === undefined ? [] : strings(request.args, "ws:git diff args");
        this.#checkGitArgs(extra);
        return this.#context.git().cli({ argv: ["diff", ...extra], cwd: this.#dir(request.dir, "git diff") });
      }
      case "log": {
        const argv = ["log", "--oneline"];
        if (typeof request.maxCount === "number") argv.push("-n", String(request.maxCount));
        return this.#context.git().cli({ argv, cwd: this.#dir(request.dir, "git log") });
      }
      case "cli": {
        // The reference's rule: cli may write (commit, checkout, …), so it needs write access even for status.
        if (options.access === "read") throw readOnly("git cli");
        const argv = strings(request.argv, "ws:git cli argv");
        this.#checkGitArgs(argv);
        const sub = argv.find((arg) => !arg.startsWith("-"));
        if (sub !== undefined && NETWORK_GIT.has(sub)) this.#needsNetwork(sub);
        const env =
          request.env === undefined ? undefined : (record(request.env, "ws:git cli env") as Record<string, unknown>);
        if (env && Object.values(env).some((value) => typeof value !== "string")) {
          throw new TypeError("ws:git cli env values must be strings");
        }
        if (request.stdin !== undefined && typeof request.stdin !== "string") {
          throw new TypeError("ws:git cli stdin must be a string");
        }
        return this.#context.git().cli({
          argv,
          cwd: this.#dir(request.cwd, "git cli"),
          ...(env ? { env: env as Record<string, string> } : {}),
          ...(typeof request.stdin === "string" ? { stdin: request.stdin } : {}),
        });
      }
      default:
        throw new TypeError(`ws:git has no function ${method}`);
    }
  }

  /** `-C`, `--git-dir` and `--work-tree` would point git outside the root. */
  #checkGitArgs(argv: string[]): void {
    for (const arg of argv) {
      if (arg === "-C" || arg.startsWith("-C") || arg.startsWith("--git-dir") || arg.startsWith("--work-tree")) {
        throw new TypeError(`ws:git: ${arg.split("=")[0]} is not allowed; pass cwd (inside the root) instead`);
      }
    }
  }

  async #artifacts(method: string, args: unknown[]): Promise<unknown> {
    const { options } = this.#context;
    const client = this.#context.artifacts() as WorkspaceArtifacts & ArtifactsMethods;
    const name = args[0];
    const need = <K extends keyof ArtifactsMethods>(key: K): NonNullable<ArtifactsMethods[K]> => {
      const fn = client[key];
      if (typeof fn !== "function")
        throw new TypeError(`ws:artifacts ${method}: the Workspace's artifacts client has no ${key}()`);
      return fn.bind(client) as NonNullable<ArtifactsMethods[K]>;
    };
    if (method !== "list" && typeof name !== "string") throw new TypeError(`ws:artifacts ${method} needs a name`);
    switch (method) {
      case "create":
        if (options.access === "read") throw readOnly("artifacts create");
        return need("create")(name as string, args[1]);
      case "get":
        return need("get")(name as string);
      case "list":
        return need("list")(args[0]);
      case "importArtifact":
        if (options.access === "read") throw readOnly("artifacts import");
        if (!options.allowArtifactNetwork) {
          throw new Error("ws:artifacts importArtifact needs network access: set allowArtifactNetwork: true");
        }
        return need("import")(name as string, args[1], args[2]);
      case "deleteArtifact":
        if (options.access === "read") throw readOnly("artifacts delete");
        return need("delete")(name as string);
      default:
        throw new TypeError(`ws:artifacts has no function ${method}`);
    }
  }
}

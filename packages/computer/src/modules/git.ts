/**
 * `@cloudflare/computer/modules/git`: `createGitModule()`, the `ws:git` host
 * module over the Workspace's `GitClient`. Each export takes the options
 * object of the `GitClient` method of the same name, with `dir` (or `cwd`)
 * confined to the backend root. Requests run from the Durable Object, so the
 * JavaScript backend's egress does not apply: network verbs need
 * `allowNetwork`.
 */
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import { optionsArg, requireWrite } from "./access.js";
import type { WorkspaceModuleCallContext, WorkspaceModuleFactory, WorkspaceModuleFunctions } from "./types.js";

export interface GitModuleOptions {
  /** Allow `clone` and the network verbs of `cli` (fetch, pull, push, ls-remote, submodule). Default false. */
  readonly allowNetwork?: boolean;
}

const NETWORK_VERBS = new Set(["clone", "fetch", "pull", "push", "ls-remote", "submodule"]);

/** `-C`, `--git-dir`, `--work-tree` anywhere but a leading `-C <dir>` would point git outside the root. */
function refusePathOverrides(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg.startsWith("-C") || /^--(git-dir|work-tree)(=|$)/.test(arg)) {
      throw new Error("Git CLI path overrides are not available inside a confined Workspace runtime.");
    }
  }
}

async function withDir(
  value: WorkspaceRuntimeValue | undefined,
  context: WorkspaceModuleCallContext,
  what: string,
  allowMissing = false,
): Promise<Record<string, WorkspaceRuntimeValue>> {
  const options = optionsArg(value, what);
  const dir = typeof options.dir === "string" ? options.dir : ".";
  return { ...options, dir: await context.resolvePath(dir, { allowMissing }) };
}

export function createGitModule(options: GitModuleOptions = {}): WorkspaceModuleFactory {
  const allowNetwork = options.allowNetwork === true;
  const needNetwork = (what: string): void => {
    if (!allowNetwork) throw new Error(`${what} requires createGitModule({ allowNetwork: true }).`);
  };
  const factory = (host: Parameters<WorkspaceModuleFactory>[0]): WorkspaceModuleFunctions => ({
    async clone([value], context) {
      requireWrite(context, "Git clone");
      needNetwork("Git clone");
      // The client checks `url` and the rest, as it does for a model's call.
      const request = await withDir(value, context, "ws:git clone", true);
      return host.git.clone(request as unknown as Parameters<typeof host.git.clone>[0]);
    },
    async diff([value], context) {
      return host.git.diff(await withDir(value, context, "ws:git diff"));
    },
    async status([value], context) {
      return host.git.status(await withDir(value, context, "ws:git status"));
    },
    async log([value], context) {
      return host.git.log(await withDir(value, context, "ws:git log"));
    },
    async cli([value], context) {
      requireWrite(context, "Git CLI");
      const request = optionsArg(value, "ws:git cli");
      const given = request.argv ?? [];
      if (!Array.isArray(given) || given.some((arg) => typeof arg !== "string")) {
        throw new TypeError("ws:git cli: argv must be an array of strings");
      }
      let argv = given as string[];
      let cwd = typeof request.cwd === "string" ? request.cwd : ".";
      // A leading `-C <dir>` is a cwd, which resolvePath confines like any other.
      if (argv[0] === "-C") {
        const dir = argv[1];
        if (dir === undefined || dir === "") throw new Error("Git CLI option '-C' requires a value.");
        cwd = dir.startsWith("/") ? dir : `${cwd.replace(/\/+$/, "")}/${dir}`;
        argv = argv.slice(2);
      }
      refusePathOverrides(argv);
      if (argv.some((arg) => NETWORK_VERBS.has(arg.toLowerCase()))) needNetwork("Git CLI network command");
      const env = request.env;
      return host.git.cli({
        argv,
        cwd: await context.resolvePath(cwd, { allowMissing: true }),
        ...(env && typeof env === "object" && !Array.isArray(env) ? { env: env as Record<string, string> } : {}),
        ...(typeof request.stdin === "string" ? { stdin: request.stdin } : {}),
      });
    },
  });
  const description = `The workspace's git: \`status({ dir })\`, \`diff({ dir })\`, \`log({ dir, depth })\`, \`clone({ url, dir })\`, and \`cli({ argv, cwd })\` for any other subcommand (a leading \`-C <dir>\` works).${
    allowNetwork ? "" : " Network commands (clone, fetch, pull, push) are not allowed."
  }`;
  return Object.assign(factory, { description });
}

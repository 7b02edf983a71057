/** fetch, pull and push: the subcommands that talk to a remote. */
import { GitUsageError } from "../errors.js";
import { flag, maxPositionals, option } from "./args.js";
import type { Subcommand } from "./types.js";

export const fetch: Subcommand = {
  usage: "[--depth <n>] [--prune] [--tags] [<remote> [<branch>]]",
  flags: {
    depth: { type: "string" },
    prune: { type: "boolean", short: "p" },
    tags: { type: "boolean", short: "t" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    maxPositionals(args, 2, this.usage);
    const [remote, ref] = args.positionals;
    const depth = option(args, "depth");
    if (depth !== undefined && !(Number(depth) > 0))
      throw new GitUsageError(`depth '${depth}' is not a positive number`);
    const result = await git.fetch({
      dir: await io.root(),
      prune: flag(args, "prune"),
      tags: flag(args, "tags"),
      ...(remote ? { remote } : {}),
      ...(ref ? { ref } : {}),
      ...(depth ? { depth: Number(depth) } : {}),
    });
    return { stderr: flag(args, "quiet") ? "" : result.progress };
  },
};

export const pull: Subcommand = {
  usage: "[--ff-only] [<remote> [<branch>]]",
  flags: { "ff-only": { type: "boolean" }, quiet: { type: "boolean", short: "q" } },
  async run(git, args, io) {
    maxPositionals(args, 2, this.usage);
    const [remote, ref] = args.positionals;
    const result = await git.pull({
      dir: await io.root(),
      env: io.env,
      fastForwardOnly: flag(args, "ff-only"),
      ...(remote ? { remote } : {}),
      ...(ref ? { ref } : {}),
    });
    return { stdout: mergeLine(result), stderr: flag(args, "quiet") ? "" : result.progress };
  },
};

export const push: Subcommand = {
  usage: "[-f] [-d] [-u] [<remote> [<src>[:<dst>]]]",
  flags: {
    force: { type: "boolean", short: "f" },
    delete: { type: "boolean", short: "d" },
    "set-upstream": { type: "boolean", short: "u" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    maxPositionals(args, 2, this.usage);
    const dir = await io.root();
    const [remote = "origin", spec] = args.positionals;
    const [src, dst] = spec?.includes(":") ? (spec.split(":", 2) as [string, string]) : [spec, spec];
    const result = await git.push({
      dir,
      remote,
      force: flag(args, "force") || spec?.startsWith("+") === true,
      delete: flag(args, "delete"),
      ...(src ? { ref: src.replace(/^\+/, "") } : {}),
      ...(dst ? { remoteRef: dst } : {}),
    });
    if (flag(args, "set-upstream")) {
      await git.configSet({ dir, path: `branch.${result.ref}.remote`, value: remote });
      await git.configSet({ dir, path: `branch.${result.ref}.merge`, value: `refs/heads/${dst ?? result.ref}` });
    }
    return {
      stderr: flag(args, "quiet") ? "" : `${result.progress}To ${remote}\n   ${result.ref} -> ${dst ?? result.ref}\n`,
    };
  },
};

export function mergeLine(result: { status: "up-to-date" | "fast-forward" | "merge"; oid: string }): string {
  if (result.status === "up-to-date") return "Already up to date.\n";
  return result.status === "fast-forward"
    ? `Fast-forward to ${result.oid.slice(0, 7)}\n`
    : `Merge commit ${result.oid.slice(0, 7)}\n`;
}

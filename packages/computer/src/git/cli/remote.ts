import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const remote: Subcommand = {
  usage: "[-v] | add [-f] <name> <url> | remove <name> | get-url <name>",
  flags: { verbose: { type: "boolean", short: "v" }, force: { type: "boolean", short: "f" } },
  async run(git, args, io) {
    const dir = await io.root();
    const [action, name, url, ...extra] = args.positionals;
    if (extra.length > 0) throw new GitUsageError("too many arguments");
    if (action === undefined) {
      // By name, as the original lists them (config order would depend on how each was added).
      const remotes = (await git.remoteList({ dir })).sort((a, b) =>
        a.remote < b.remote ? -1 : a.remote > b.remote ? 1 : 0,
      );
      const lines = flag(args, "verbose")
        ? remotes.flatMap((r) => [`${r.remote}\t${r.url} (fetch)`, `${r.remote}\t${r.url} (push)`])
        : remotes.map((r) => r.remote);
      return { stdout: lines.length ? `${lines.join("\n")}\n` : "" };
    }
    if (action === "add") {
      if (!name || !url) throw new GitUsageError("remote add needs <name> <url>");
      await git.remoteAdd({ dir, name, url, force: flag(args, "force") });
      return {};
    }
    if (action === "remove" || action === "rm") {
      if (!name || url) throw new GitUsageError("remote remove needs <name>");
      await git.remoteRemove({ dir, name });
      return {};
    }
    if (action === "get-url") {
      if (!name || url) throw new GitUsageError("remote get-url needs <name>");
      const found = (await git.remoteList({ dir })).find((r) => r.remote === name);
      return found ? { stdout: `${found.url}\n` } : { stderr: `git remote: no such remote '${name}'\n`, exitCode: 2 };
    }
    throw new GitUsageError(`unknown remote subcommand '${action}'`);
  },
};

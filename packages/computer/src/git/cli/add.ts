import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const add: Subcommand = {
  usage: "[-A | --all] [-f] [--] <pathspec>...",
  flags: {
    all: { type: "boolean", short: "A" },
    force: { type: "boolean", short: "f" },
    verbose: { type: "boolean", short: "v" },
  },
  async run(git, args, io) {
    const given = [...args.positionals, ...args.rest];
    if (given.length === 0 && !flag(args, "all")) throw new GitUsageError("nothing specified, nothing added");
    const root = await io.root();
    const paths = flag(args, "all") && given.length === 0 ? ["."] : await io.repoPaths(given);
    const result = await git.add({ dir: root, paths, force: flag(args, "force") });
    if (!flag(args, "verbose")) return {};
    const lines = [...result.added.map((p) => `add '${p}'`), ...result.removed.map((p) => `remove '${p}'`)];
    return { stdout: lines.length ? `${lines.join("\n")}\n` : "" };
  },
};

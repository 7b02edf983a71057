import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const rm: Subcommand = {
  usage: "[--cached] [-r] [-q] [--] <pathspec>...",
  flags: {
    cached: { type: "boolean" },
    recursive: { type: "boolean", short: "r" },
    force: { type: "boolean", short: "f" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    const given = [...args.positionals, ...args.rest];
    if (given.length === 0) throw new GitUsageError("no pathspec given");
    const root = await io.root();
    const { removed } = await git.rm({
      dir: root,
      paths: await io.repoPaths(given),
      cached: flag(args, "cached"),
      recursive: flag(args, "recursive"),
    });
    return { stdout: flag(args, "quiet") ? "" : removed.map((path) => `rm '${path}'\n`).join("") };
  },
};

import { resolvePath } from "../paths.js";
import { maxPositionals, option } from "./args.js";
import type { Subcommand } from "./types.js";

export const init: Subcommand = {
  usage: "[-b <branch>] [--bare] [<directory>]",
  flags: {
    "initial-branch": { type: "string", short: "b" },
    bare: { type: "boolean" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    maxPositionals(args, 1, this.usage);
    const dir = resolvePath(io.cwd, args.positionals[0] ?? ".");
    const bare = args.flags.get("bare") === true;
    await git.init({ dir, bare, defaultBranch: option(args, "initial-branch") ?? "main" });
    const where = bare ? dir : `${dir === "/" ? "" : dir}/.git`;
    return { stdout: args.flags.get("quiet") ? "" : `Initialized empty Git repository in ${where}/\n` };
  },
};

import { GitUsageError } from "../errors.js";
import { option } from "./args.js";
import type { Subcommand } from "./types.js";

export const stash: Subcommand = {
  usage: "[push [-m <message>] | list | pop]",
  flags: { message: { type: "string", short: "m" } },
  async run(git, args, io) {
    const dir = await io.root();
    const [action = "push", ...extra] = args.positionals;
    if (extra.length > 0) throw new GitUsageError("too many arguments");
    if (action === "push" || action === "save") {
      const message = option(args, "message");
      await git.stashPush({ dir, ...(message ? { message } : {}) });
      return { stdout: "Saved working directory and index state\n" };
    }
    if (action === "list") {
      const entries = await git.stashList({ dir });
      return { stdout: entries.map((entry, i) => `stash@{${i}}: ${entry}\n`).join("") };
    }
    if (action === "pop") {
      await git.stashPop({ dir });
      return { stdout: "Dropped refs/stash@{0}\n" };
    }
    throw new GitUsageError(`unknown stash subcommand '${action}'`);
  },
};

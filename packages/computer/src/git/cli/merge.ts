import { GitUsageError } from "../errors.js";
import { flag, option } from "./args.js";
import { mergeLine } from "./remote-sync.js";
import type { Subcommand } from "./types.js";

export const merge: Subcommand = {
  usage: "[--ff-only] [-m <msg>] <commit>",
  flags: { "ff-only": { type: "boolean" }, message: { type: "string", short: "m" } },
  async run(git, args, io) {
    const [theirs, ...extra] = args.positionals;
    if (!theirs || extra.length > 0) throw new GitUsageError("exactly one commit to merge is supported");
    const message = option(args, "message");
    const result = await git.merge({
      dir: await io.root(),
      theirs,
      env: io.env,
      fastForwardOnly: flag(args, "ff-only"),
      ...(message ? { message } : {}),
    });
    return { stdout: mergeLine(result) };
  },
};

import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

/** `reset --hard [<rev>]` and `reset [<rev>] [--] <paths>` (unstage). Moving HEAD with --soft/--mixed is unsupported: 129. */
export const reset: Subcommand = {
  usage: "--hard [<commit>] | [<commit>] [--] <pathspec>...",
  flags: { hard: { type: "boolean" }, quiet: { type: "boolean", short: "q" } },
  async run(git, args, io) {
    const dir = await io.root();
    if (flag(args, "hard")) {
      if (args.positionals.length > 1 || args.rest.length > 0)
        throw new GitUsageError("--hard takes at most one commit and no paths");
      const rev = args.positionals[0] ?? "HEAD";
      const { oid } = await git.reset({ dir, rev, hard: true });
      const [entry] = await git.log({ dir, ref: oid ?? rev, depth: 1 });
      const subject = entry?.commit.message.split("\n")[0] ?? "";
      return { stdout: `HEAD is now at ${(oid ?? "").slice(0, 7)} ${subject}\n` };
    }
    // Without --hard: `reset [<rev>] [-- paths]`. A bare `reset` unstages everything.
    let rev = "HEAD";
    let paths = [...args.rest];
    if (args.rest.length > 0) rev = args.positionals[0] ?? "HEAD";
    else if (args.positionals.length > 0) {
      const resolved = await git.revParse({ dir, rev: args.positionals[0] as string }).catch(() => undefined);
      if (resolved) {
        // `reset HEAD` (or any name of the current commit) moves nothing: it only unstages, as a bare reset.
        const head = await git.revParse({ dir, rev: "HEAD" }).catch(() => undefined);
        if (args.positionals.length === 1 && resolved !== head)
          throw new GitUsageError("moving HEAD without --hard (--soft/--mixed) is not supported");
        rev = args.positionals[0] as string;
        paths = args.positionals.slice(1);
      } else paths = args.positionals;
    }
    await git.reset({ dir, rev, ...(paths.length ? { paths: await io.repoPaths(paths) } : {}) });
    return {};
  },
};

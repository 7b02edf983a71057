import { GitError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

/** Like git with clean.requireForce: nothing happens without -f, unless -n only reports. */
export const clean: Subcommand = {
  usage: "-f|-n [-d] [--] [<path>...]",
  flags: {
    force: { type: "boolean", short: "f" },
    "dry-run": { type: "boolean", short: "n" },
    directories: { type: "boolean", short: "d" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    const dryRun = flag(args, "dry-run");
    if (!flag(args, "force") && !dryRun) {
      throw new GitError("EREFUSED", "clean.requireForce is true and neither -n nor -f given; refusing to clean");
    }
    const given = [...args.positionals, ...args.rest];
    const { removed } = await git.clean({
      dir: await io.root(),
      dryRun,
      directories: flag(args, "directories"),
      ...(given.length ? { paths: await io.repoPaths(given) } : {}),
    });
    if (flag(args, "quiet")) return {};
    return { stdout: removed.map((path) => `${dryRun ? "Would remove" : "Removing"} ${path}\n`).join("") };
  },
};

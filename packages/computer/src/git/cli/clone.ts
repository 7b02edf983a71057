import { defaultCloneDir } from "../api/remote.js";
import { GitUsageError } from "../errors.js";
import { resolvePath } from "../paths.js";
import { flag, maxPositionals, option, options } from "./args.js";
import type { Subcommand } from "./types.js";

/** Shallow by default (depth 1); `--depth 0` or `--no-single-branch`-free full history with `--depth 0`. */
export const clone: Subcommand = {
  usage: "[--depth <n>] [-b <branch>] [--no-checkout] [--path <p>]... <url> [<directory>]",
  flags: {
    depth: { type: "string" },
    branch: { type: "string", short: "b" },
    "no-checkout": { type: "boolean", short: "n" },
    path: { type: "string" },
    origin: { type: "string", short: "o" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    maxPositionals(args, 2, this.usage);
    const [url, target] = args.positionals;
    if (!url) throw new GitUsageError("you must specify a repository to clone");
    const depthText = option(args, "depth");
    const depth = depthText === undefined ? undefined : Number(depthText);
    if (depth !== undefined && !(depth >= 0)) throw new GitUsageError(`depth '${depthText}' is not a number`);
    const dir = resolvePath(io.cwd, target ?? defaultCloneDir(url).slice(1));
    const paths = options(args, "path");
    const result = await git.clone({
      url,
      dir,
      noCheckout: flag(args, "no-checkout"),
      ...(depth !== undefined ? { depth } : {}),
      ...(option(args, "branch") ? { ref: option(args, "branch") as string } : {}),
      ...(option(args, "origin") ? { remote: option(args, "origin") as string } : {}),
      ...(paths.length ? { paths } : {}),
    });
    const quiet = flag(args, "quiet");
    return { stderr: quiet ? "" : `Cloning into '${result.dir}'...\n${result.progress}` };
  },
};

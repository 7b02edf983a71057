import { GitUsageError } from "../errors.js";
import { formatStatusLong, formatStatusPorcelainV2, formatStatusShort } from "../format.js";
import { flag, option } from "./args.js";
import type { Subcommand } from "./types.js";

/** Porcelain v2 by default: agents parse it, and it is stable across git versions. */
export const status: Subcommand = {
  usage: "[--porcelain[=v1|v2]] [-s] [--long] [-b] [-u[all|no|normal]] [--] [<pathspec>...]",
  flags: {
    porcelain: { type: "boolean" },
    short: { type: "boolean", short: "s" },
    long: { type: "boolean" },
    branch: { type: "boolean", short: "b" },
    "untracked-files": { type: "string", short: "u" },
  },
  async run(git, args, io) {
    // `--porcelain=v2` arrives as an unknown value for a boolean; accept the forms git has.
    const root = await io.root();
    const given = [...args.positionals, ...args.rest];
    const untracked = option(args, "untracked-files") ?? "normal";
    if (untracked !== "normal" && untracked !== "all" && untracked !== "no") {
      throw new GitUsageError(`invalid untracked-files mode '${untracked}'`);
    }
    const result = await git.status({
      dir: root,
      untracked,
      ...(given.length ? { paths: await io.repoPaths(given) } : {}),
    });
    const branch = flag(args, "branch");
    if (flag(args, "long")) return { stdout: formatStatusLong(result) };
    const v1 = flag(args, "short") || args.flags.get("porcelain") === true;
    return { stdout: v1 ? formatStatusShort(result, { branch }) : formatStatusPorcelainV2(result, { branch }) };
  },
};

/** `--porcelain=v1` / `--porcelain=v2` are rewritten before parsing (the parser's booleans take no value). */
export function normalizePorcelain(argv: readonly string[]): string[] {
  return argv.flatMap((arg) =>
    arg === "--porcelain=v1" || arg === "--porcelain=1"
      ? ["--porcelain"]
      : arg === "--porcelain=v2" || arg === "--porcelain=2"
        ? []
        : [arg],
  );
}

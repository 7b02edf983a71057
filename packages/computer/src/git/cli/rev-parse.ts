import { GitUsageError } from "../errors.js";
import { flag, option } from "./args.js";
import type { Subcommand } from "./types.js";

export const revParse: Subcommand = {
  usage: "[--short[=<n>]] [--abbrev-ref] [--show-toplevel] [--git-dir] [--is-inside-work-tree] <rev>...",
  flags: {
    short: { type: "boolean" },
    "abbrev-ref": { type: "boolean" },
    "show-toplevel": { type: "boolean" },
    "git-dir": { type: "boolean" },
    "is-inside-work-tree": { type: "boolean" },
    verify: { type: "boolean" },
    length: { type: "string" },
  },
  async run(git, args, io) {
    const dir = await io.root();
    const lines: string[] = [];
    if (flag(args, "show-toplevel")) lines.push(dir);
    if (flag(args, "git-dir")) lines.push(dir === io.cwd ? ".git" : `${dir === "/" ? "" : dir}/.git`);
    if (flag(args, "is-inside-work-tree")) lines.push("true");
    const length = Number(option(args, "length") ?? 7);
    for (const rev of args.positionals) {
      if (flag(args, "abbrev-ref")) {
        const branch = rev === "HEAD" ? await git.currentBranch({ dir }) : rev;
        lines.push(branch ?? "HEAD");
        continue;
      }
      const oid = await git.revParse({ dir, rev });
      lines.push(flag(args, "short") ? oid.slice(0, length) : oid);
    }
    if (lines.length === 0) throw new GitUsageError("nothing to parse");
    return { stdout: `${lines.join("\n")}\n` };
  },
};

/** `--short=<n>` arrives as one argument; split it for the parser. */
export function normalizeShort(argv: readonly string[]): string[] {
  return argv.flatMap((arg) => (/^--short=\d+$/.test(arg) ? ["--short", "--length", arg.slice(8)] : [arg]));
}

import { GitUsageError } from "../errors.js";
import { resolvePath } from "../paths.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const hashObject: Subcommand = {
  usage: "[-w] (--stdin | <file>...)",
  flags: { write: { type: "boolean", short: "w" }, stdin: { type: "boolean" } },
  async run(git, args, io) {
    const write = flag(args, "write");
    const lines: string[] = [];
    if (flag(args, "stdin")) lines.push(await git.hashObject({ dir: io.cwd, content: io.stdin ?? "", write }));
    for (const file of args.positionals) {
      lines.push(await git.hashObject({ dir: io.cwd, path: resolvePath(io.cwd, file), write }));
    }
    if (lines.length === 0) throw new GitUsageError("a file or --stdin is required");
    return { stdout: `${lines.join("\n")}\n` };
  },
};

import { GitUsageError } from "../errors.js";
import { flag, maxPositionals } from "./args.js";
import type { Subcommand } from "./types.js";

/** Lightweight tags only: `-a`/`-m` are not accepted. */
export const tag: Subcommand = {
  usage: "[--list] | <name> [<commit>] | -d <name>...",
  flags: {
    list: { type: "boolean", short: "l" },
    delete: { type: "boolean", short: "d" },
    force: { type: "boolean", short: "f" },
  },
  async run(git, args, io) {
    const dir = await io.root();
    if (flag(args, "delete")) {
      if (args.positionals.length === 0) throw new GitUsageError("tag name required");
      const lines: string[] = [];
      for (const name of args.positionals) {
        await git.tagDelete({ dir, name });
        lines.push(`Deleted tag '${name}'`);
      }
      return { stdout: `${lines.join("\n")}\n` };
    }
    if (args.positionals.length === 0 || flag(args, "list")) {
      const tags = await git.tagList({ dir });
      return { stdout: tags.map((name) => `${name}\n`).join("") };
    }
    maxPositionals(args, 2, this.usage);
    const [name, rev] = args.positionals as [string, string | undefined];
    await git.tag({ dir, name, force: flag(args, "force"), ...(rev ? { rev } : {}) });
    return {};
  },
};

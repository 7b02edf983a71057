import { GitUsageError } from "../errors.js";
import { flag, maxPositionals } from "./args.js";
import type { Subcommand } from "./types.js";

export const branch: Subcommand = {
  usage: "[--list] [-r|-a] | <name> [<start-point>] | -d|-D <name>...",
  flags: {
    list: { type: "boolean", short: "l" },
    delete: { type: "boolean", short: "d" },
    "force-delete": { type: "boolean", short: "D" },
    force: { type: "boolean", short: "f" },
    remotes: { type: "boolean", short: "r" },
    all: { type: "boolean", short: "a" },
    "show-current": { type: "boolean" },
  },
  async run(git, args, io) {
    const dir = await io.root();
    if (flag(args, "show-current")) {
      const current = await git.currentBranch({ dir });
      return { stdout: current ? `${current}\n` : "" };
    }
    if (flag(args, "delete") || flag(args, "force-delete")) {
      if (args.positionals.length === 0) throw new GitUsageError("branch name required");
      const lines: string[] = [];
      for (const name of args.positionals) {
        await git.branchDelete({ dir, name });
        lines.push(`Deleted branch ${name}.`);
      }
      return { stdout: `${lines.join("\n")}\n` };
    }
    if (args.positionals.length > 0 && !flag(args, "list")) {
      maxPositionals(args, 2, this.usage);
      const [name, startPoint] = args.positionals as [string, string | undefined];
      await git.branch({ dir, name, force: flag(args, "force"), ...(startPoint ? { startPoint } : {}) });
      return {};
    }
    const current = await git.currentBranch({ dir });
    const lines: string[] = [];
    if (!flag(args, "remotes")) {
      for (const name of await git.branchList({ dir })) lines.push(`${name === current ? "*" : " "} ${name}`);
    }
    if (flag(args, "remotes") || flag(args, "all")) {
      for (const { remote } of await git.remoteList({ dir })) {
        for (const name of await git.branchList({ dir, remote })) {
          if (name !== "HEAD") lines.push(`  ${flag(args, "all") ? "remotes/" : ""}${remote}/${name}`);
        }
      }
    }
    return { stdout: lines.length ? `${lines.join("\n")}\n` : "" };
  },
};

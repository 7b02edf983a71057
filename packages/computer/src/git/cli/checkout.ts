import { GitUsageError } from "../errors.js";
import { flag, option } from "./args.js";
import type { Subcommand } from "./types.js";

export const checkout: Subcommand = {
  usage: "[-f] [-b <new-branch>] <branch> | [<tree-ish>] -- <path>...",
  flags: {
    branch: { type: "string", short: "b" },
    force: { type: "boolean", short: "f" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    const dir = await io.root();
    const created = option(args, "branch");
    if (args.rest.length > 0) {
      // `checkout [<rev>] -- <paths>`: restore the paths, HEAD stays.
      const ref = args.positionals[0] ?? (await git.currentBranch({ dir })) ?? "HEAD";
      await git.checkout({ dir, ref, paths: await io.repoPaths(args.rest), force: true });
      return {};
    }
    if (created) {
      if (args.positionals.length > 1) throw new GitUsageError("too many arguments");
      await git.branch({
        dir,
        name: created,
        checkout: true,
        ...(args.positionals[0] ? { startPoint: args.positionals[0] } : {}),
      });
      return { stderr: `Switched to a new branch '${created}'\n` };
    }
    const [ref, ...paths] = args.positionals;
    if (!ref) throw new GitUsageError("a branch or commit is required");
    if (paths.length > 0) {
      await git.checkout({ dir, ref, paths: await io.repoPaths(paths), force: true });
      return {};
    }
    await git.checkout({ dir, ref, force: flag(args, "force") });
    const branches = await git.branchList({ dir });
    return { stderr: branches.includes(ref) ? `Switched to branch '${ref}'\n` : `HEAD is now at ${ref}\n` };
  },
};

export const switchBranch: Subcommand = {
  usage: "[-c <new-branch>] <branch>",
  flags: { create: { type: "string", short: "c" }, force: { type: "boolean", short: "f" } },
  async run(git, args, io) {
    const dir = await io.root();
    const created = option(args, "create");
    if (created) {
      await git.branch({
        dir,
        name: created,
        checkout: true,
        ...(args.positionals[0] ? { startPoint: args.positionals[0] } : {}),
      });
      return { stderr: `Switched to a new branch '${created}'\n` };
    }
    const ref = args.positionals[0];
    if (!ref || args.positionals.length > 1) throw new GitUsageError("exactly one branch is required");
    if (
      !(await git.branchList({ dir })).includes(ref) &&
      !(await git.branchList({ dir, remote: "origin" })).includes(ref)
    ) {
      throw new GitUsageError(`invalid reference: ${ref} (switch takes branches; use checkout for commits)`);
    }
    await git.checkout({ dir, ref, force: flag(args, "force") });
    return { stderr: `Switched to branch '${ref}'\n` };
  },
};

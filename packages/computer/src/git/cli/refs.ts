/** Raw ref plumbing: symbolic-ref and update-ref. */
import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const symbolicRef: Subcommand = {
  usage: "<name> [<ref>]",
  flags: { short: { type: "boolean" }, quiet: { type: "boolean", short: "q" } },
  async run(git, args, io) {
    const dir = await io.root();
    const [name, target, ...extra] = args.positionals;
    if (!name || extra.length > 0) throw new GitUsageError("wrong number of arguments");
    if (target !== undefined) {
      if (!target.startsWith("refs/")) throw new GitUsageError(`refusing to point ${name} outside of refs/`);
      await git.updateRef({ dir, ref: name, value: target, symbolic: true });
      return {};
    }
    if (name !== "HEAD") throw new GitUsageError("only HEAD can be read");
    const branch = await git.currentBranch({ dir });
    if (!branch) return { stderr: flag(args, "quiet") ? "" : "fatal: ref HEAD is not a symbolic ref\n", exitCode: 128 };
    return { stdout: `${flag(args, "short") ? branch : `refs/heads/${branch}`}\n` };
  },
};

export const updateRef: Subcommand = {
  usage: "[-d] <ref> [<newvalue>]",
  flags: { delete: { type: "boolean", short: "d" } },
  async run(git, args, io) {
    const dir = await io.root();
    const [ref, value] = args.positionals;
    if (!ref || args.positionals.length > (flag(args, "delete") ? 2 : 3))
      throw new GitUsageError("wrong number of arguments");
    if (flag(args, "delete")) {
      await git.updateRef({ dir, ref, delete: true });
      return {};
    }
    if (!value) throw new GitUsageError("a new value is required");
    await git.updateRef({ dir, ref, value });
    return {};
  },
};

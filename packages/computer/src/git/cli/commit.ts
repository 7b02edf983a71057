import { GitUsageError } from "../errors.js";
import { parseIdentity } from "../identity.js";
import { flag, option, options } from "./args.js";
import type { Subcommand } from "./types.js";

export const commit: Subcommand = {
  usage: "-m <msg> [-a] [--amend] [--allow-empty] [--author <name <email>>]",
  flags: {
    message: { type: "string", short: "m" },
    all: { type: "boolean", short: "a" },
    amend: { type: "boolean" },
    "allow-empty": { type: "boolean" },
    author: { type: "string" },
    quiet: { type: "boolean", short: "q" },
  },
  async run(git, args, io) {
    const messages = options(args, "message");
    if (messages.length === 0) throw new GitUsageError("a message is required (-m <msg>); no editor in the workspace");
    const authorText = option(args, "author");
    const author = authorText === undefined ? undefined : parseIdentity(authorText);
    if (authorText !== undefined && !author) {
      throw new GitUsageError(`--author '${authorText}' is not 'Name <email>'`);
    }
    const root = await io.root();
    if (flag(args, "all")) {
      // -a stages tracked files only: modifications and deletions.
      const status = await git.status({ dir: root, untracked: "no" });
      const paths = status.entries.filter((entry) => entry.y !== ".").map((entry) => entry.path);
      if (paths.length > 0) await git.add({ dir: root, paths });
    }
    const result = await git.commit({
      dir: root,
      message: messages.join("\n\n"),
      env: io.env,
      amend: flag(args, "amend"),
      allowEmpty: flag(args, "allow-empty"),
      ...(author ? { author } : {}),
    });
    return { stdout: flag(args, "quiet") ? "" : `[${result.short}] ${result.subject}\n` };
  },
};

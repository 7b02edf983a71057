import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const catFile: Subcommand = {
  usage: "(-t | -s | -e | -p) <object>",
  flags: {
    type: { type: "boolean", short: "t" },
    size: { type: "boolean", short: "s" },
    exists: { type: "boolean", short: "e" },
    pretty: { type: "boolean", short: "p" },
  },
  async run(git, args, io) {
    const [rev, ...extra] = args.positionals;
    const modes = ["type", "size", "exists", "pretty"].filter((mode) => flag(args, mode));
    if (!rev || extra.length > 0 || modes.length !== 1) throw new GitUsageError("one of -t, -s, -e, -p and one object");
    const dir = await io.root();
    if (flag(args, "exists")) {
      const found = await git.catFile({ dir, rev }).catch(() => undefined);
      return { exitCode: found ? 0 : 1 };
    }
    const object = await git.catFile({ dir, rev });
    if (flag(args, "type")) return { stdout: `${object.type}\n` };
    if (flag(args, "size")) return { stdout: `${object.size}\n` };
    if (object.type !== "tree") return { stdout: new TextDecoder().decode(object.content) };
    const entries = await git.lsTree({ dir, rev: object.oid });
    return { stdout: entries.map((e) => `${e.mode.padStart(6, "0")} ${e.type} ${e.oid}\t${e.path}\n`).join("") };
  },
};

import { GitError, GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

/** `config <key>` reads (exit 1 when unset, like git); `config <key> <value>` writes; `--unset` removes. */
export const config: Subcommand = {
  usage: "[--get] <key> | <key> <value> | --unset <key>",
  flags: { get: { type: "boolean" }, unset: { type: "boolean" }, local: { type: "boolean" } },
  async run(git, args, io) {
    const [key, value, ...extra] = args.positionals;
    if (!key || extra.length > 0) throw new GitUsageError("wrong number of arguments");
    if (!/^[A-Za-z][A-Za-z0-9-]*(\..+)?\.[A-Za-z][A-Za-z0-9-]*$/.test(key))
      throw new GitError("EFAILED", `invalid key: ${key}`);
    const dir = await io.root();
    if (flag(args, "unset")) {
      await git.configSet({ dir, path: key, value: undefined });
      return {};
    }
    if (value !== undefined && !flag(args, "get")) {
      await git.configSet({ dir, path: key, value });
      return {};
    }
    const found = await git.configGet({ dir, path: key });
    return found === undefined ? { exitCode: 1 } : { stdout: `${found}\n` };
  },
};

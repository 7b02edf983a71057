/** ls-files and ls-tree. */
import { flag, maxPositionals } from "./args.js";
import type { Subcommand } from "./types.js";

export const lsFiles: Subcommand = {
  usage: "[--] [<path>...]",
  flags: { cached: { type: "boolean", short: "c" } },
  async run(git, args, io) {
    const dir = await io.root();
    const given = [...args.positionals, ...args.rest];
    const specs = given.length ? await io.repoPaths(given) : undefined;
    const files = (await git.lsFiles({ dir })).filter(
      (file) => !specs || specs.some((spec) => spec === "." || file === spec || file.startsWith(`${spec}/`)),
    );
    return { stdout: files.map((file) => `${file}\n`).join("") };
  },
};

export const lsTree: Subcommand = {
  usage: "[-r] [--name-only] <tree-ish> [<path>]",
  flags: { recursive: { type: "boolean", short: "r" }, "name-only": { type: "boolean" } },
  async run(git, args, io) {
    maxPositionals(args, 2, this.usage);
    const [rev = "HEAD", path] = args.positionals;
    const entries = await git.lsTree({
      dir: await io.root(),
      rev,
      recursive: flag(args, "recursive"),
      ...(path ? { path } : {}),
    });
    const nameOnly = flag(args, "name-only");
    return {
      stdout: entries
        .map((e) => (nameOnly ? `${e.path}\n` : `${e.mode.padStart(6, "0")} ${e.type} ${e.oid}\t${e.path}\n`))
        .join(""),
    };
  },
};

import type { DiffSide, FileDiff } from "../api/diff.js";
import { GitUsageError } from "../errors.js";
import { flag } from "./args.js";
import type { Subcommand } from "./types.js";

export const diff: Subcommand = {
  usage: "[--cached|--staged] [--name-only|--name-status|--numstat|--stat] [<commit> [<commit>]] [-- <path>...]",
  flags: {
    cached: { type: "boolean" },
    staged: { type: "boolean" },
    "name-only": { type: "boolean" },
    "name-status": { type: "boolean" },
    numstat: { type: "boolean" },
    stat: { type: "boolean" },
  },
  async run(git, args, io) {
    const root = await io.root();
    const cached = flag(args, "cached") || flag(args, "staged");
    const [first, second, ...extra] = args.positionals;
    if (extra.length > 0) throw new GitUsageError("too many revisions");
    let from: DiffSide | undefined;
    let to: DiffSide | undefined;
    if (first !== undefined) {
      from = { rev: first };
      to = second !== undefined ? { rev: second } : cached ? { index: true } : { worktree: true };
    }
    const files = await git.diffFiles({
      dir: root,
      cached,
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      ...(args.rest.length ? { paths: await io.repoPaths(args.rest) } : {}),
    });
    return { stdout: render(files, args.flags) };
  },
};

function render(files: FileDiff[], flags: Map<string, boolean | string[]>): string {
  if (flags.get("name-only")) return files.map((f) => `${f.path}\n`).join("");
  if (flags.get("name-status")) return files.map((f) => `${f.status}\t${f.path}\n`).join("");
  if (flags.get("numstat")) {
    return files.map((f) => (f.binary ? `-\t-\t${f.path}\n` : `${f.insertions}\t${f.deletions}\t${f.path}\n`)).join("");
  }
  if (flags.get("stat")) {
    const lines = files.map(
      (f) =>
        ` ${f.path} | ${f.binary ? "Bin" : f.insertions + f.deletions} ${"+".repeat(f.insertions)}${"-".repeat(f.deletions)}`,
    );
    const plus = files.reduce((n, f) => n + f.insertions, 0);
    const minus = files.reduce((n, f) => n + f.deletions, 0);
    if (files.length === 0) return "";
    lines.push(
      ` ${files.length} file${files.length === 1 ? "" : "s"} changed, ${plus} insertions(+), ${minus} deletions(-)`,
    );
    return `${lines.join("\n")}\n`;
  }
  return files.map((f) => f.patch).join("");
}

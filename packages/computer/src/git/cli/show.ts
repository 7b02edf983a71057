import { maxPositionals } from "./args.js";
import { formatMedium } from "./log.js";
import type { Subcommand } from "./types.js";

export const show: Subcommand = {
  usage: "[<object>]",
  flags: { "name-only": { type: "boolean" }, stat: { type: "boolean" } },
  async run(git, args, io) {
    maxPositionals(args, 1, this.usage);
    const result = await git.show({ dir: await io.root(), rev: args.positionals[0] ?? "HEAD" });
    if (result.type === "blob") return { stdout: new TextDecoder().decode(result.content) };
    if (result.type === "tree")
      return { stdout: (result.entries ?? []).map((e) => `${e.path}${e.type === "tree" ? "/" : ""}\n`).join("") };
    if (result.type !== "commit" || !result.commit) return { stdout: `${result.type} ${result.oid}\n` };
    const files = result.files ?? [];
    const body = args.flags.get("name-only")
      ? files.map((file) => `${file.path}\n`).join("")
      : files.map((file) => file.patch).join("");
    return { stdout: `${formatMedium(result.commit)}${body ? `\n${body}` : ""}` };
  },
};

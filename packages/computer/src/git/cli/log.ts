import type { LogEntry } from "../api/history.js";
import { GitUsageError } from "../errors.js";
import { flag, maxPositionals, option } from "./args.js";
import type { Subcommand } from "./types.js";

export const log: Subcommand = {
  usage: "[--oneline] [-n <count>] [--format=%H|%h|%s|%an|%ae] [<revision>]",
  flags: {
    oneline: { type: "boolean" },
    "max-count": { type: "string", short: "n" },
    format: { type: "string" },
    pretty: { type: "string" },
  },
  async run(git, args, io) {
    maxPositionals(args, 1, this.usage);
    const countText = option(args, "max-count");
    const count = countText === undefined ? undefined : Number(countText);
    if (count !== undefined && (!Number.isInteger(count) || count < 0)) {
      throw new GitUsageError(`'${countText}' is not a count`);
    }
    const entries = await git.log({
      dir: await io.root(),
      ...(args.positionals[0] ? { ref: args.positionals[0] } : {}),
      ...(count !== undefined ? { depth: count } : {}),
    });
    const format = option(args, "format") ?? option(args, "pretty")?.replace(/^(format|tformat):/, "");
    if (flag(args, "oneline")) return { stdout: entries.map((e) => `${e.oid.slice(0, 7)} ${subject(e)}\n`).join("") };
    if (format !== undefined) return { stdout: entries.map((e) => `${applyFormat(format, e)}\n`).join("") };
    return { stdout: entries.map(formatMedium).join("\n") };
  },
};

/** `-<n>` (`git log -1`) is git's short form of `--max-count=<n>`; the flag parser knows only letters. */
export function normalizeCount(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const [index, arg] of argv.entries()) {
    if (arg === "--") return [...out, ...argv.slice(index)];
    out.push(/^-\d+$/.test(arg) ? `--max-count=${arg.slice(1)}` : arg);
  }
  return out;
}

function subject(entry: LogEntry): string {
  return entry.commit.message.split("\n")[0] ?? "";
}

function applyFormat(format: string, entry: LogEntry): string {
  const { author, committer } = entry.commit;
  const table: Record<string, string> = {
    H: entry.oid,
    h: entry.oid.slice(0, 7),
    T: entry.commit.tree,
    P: entry.commit.parent.join(" "),
    s: subject(entry),
    B: entry.commit.message.trimEnd(),
    an: author.name,
    ae: author.email,
    at: String(author.timestamp),
    cn: committer.name,
    ce: committer.email,
    ct: String(committer.timestamp),
    n: "\n",
  };
  return format.replace(/%(an|ae|at|cn|ce|ct|[HhTPsBn])/g, (_, key: string) => table[key] ?? "");
}

/** git's default "medium" format. */
export function formatMedium(entry: LogEntry): string {
  const { author } = entry.commit;
  const lines = [`commit ${entry.oid}`];
  if (entry.commit.parent.length > 1) lines.push(`Merge: ${entry.commit.parent.map((p) => p.slice(0, 7)).join(" ")}`);
  lines.push(
    `Author: ${author.name} <${author.email}>`,
    `Date:   ${formatDate(author.timestamp, author.timezoneOffset)}`,
    "",
  );
  for (const line of entry.commit.message.trimEnd().split("\n")) lines.push(line === "" ? "" : `    ${line}`);
  return `${lines.join("\n")}\n`;
}

/** `Thu Nov 28 10:00:00 2026 +0100`; isomorphic-git's timezoneOffset is minutes west of UTC (JS sign). */
function formatDate(seconds: number, offsetMinutes: number): string {
  const shifted = new Date((seconds - offsetMinutes * 60) * 1000);
  const [day, month, date, year, time] = shifted.toUTCString().replace(",", "").split(" ");
  const minutes = -offsetMinutes;
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  return `${day} ${month} ${Number(date)} ${time} ${year} ${zone}`;
}

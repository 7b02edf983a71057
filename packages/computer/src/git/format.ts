/**
 * Status formatters, as git prints them: porcelain v2 (the CLI's default,
 * stable for agents to parse), porcelain v1 / `--short`, and a short human
 * summary. A path deleted from the index but still on disk is both `D.`
 * and untracked, as in git.
 */
import { type GitStatus, type GitStatusEntry, ZERO_OID } from "./api/status.js";

export interface StatusFormatOptions {
  /** Prefix the `# branch.*` headers (v2) or the `## branch` line (v1). */
  branch?: boolean;
}

export function formatStatusPorcelainV2(status: GitStatus, options: StatusFormatOptions = {}): string {
  const lines: string[] = [];
  if (options.branch) {
    lines.push(`# branch.oid ${status.head ?? "(initial)"}`, `# branch.head ${status.branch ?? "(detached)"}`);
  }
  const untracked: string[] = [];
  for (const entry of status.entries) {
    if (entry.x === "?") {
      untracked.push(`? ${entry.path}`);
      continue;
    }
    lines.push(
      [
        "1",
        `${entry.x}${entry.y}`,
        "N...",
        mode(entry.head?.mode),
        mode(entry.index?.mode),
        mode(entry.y === "D" ? undefined : (entry.worktree?.mode ?? entry.index?.mode)),
        entry.head?.oid ?? ZERO_OID,
        entry.index?.oid ?? ZERO_OID,
        entry.path,
      ].join(" "),
    );
    if (entry.x === "D" && entry.worktree) untracked.push(`? ${entry.path}`);
  }
  return joinLines([...lines, ...untracked]);
}

export function formatStatusShort(status: GitStatus, options: StatusFormatOptions = {}): string {
  const lines: string[] = options.branch ? [`## ${status.branch ?? "HEAD (no branch)"}`] : [];
  const untracked: string[] = [];
  for (const entry of status.entries) {
    if (entry.x === "?") untracked.push(`?? ${entry.path}`);
    else {
      lines.push(`${short(entry.x)}${short(entry.y)} ${entry.path}`);
      if (entry.x === "D" && entry.worktree) untracked.push(`?? ${entry.path}`);
    }
  }
  return joinLines([...lines, ...untracked]);
}

/** A few lines for people: branch, then staged, unstaged and untracked paths. */
export function formatStatusLong(status: GitStatus): string {
  const lines = [status.branch ? `On branch ${status.branch}` : "HEAD detached"];
  if (status.head === null) lines.push("", "No commits yet");
  const section = (title: string, picked: GitStatusEntry[], label: (entry: GitStatusEntry) => string): void => {
    if (picked.length > 0) lines.push("", `${title}:`, ...picked.map((entry) => `\t${label(entry)}${entry.path}`));
  };
  const names: Record<string, string> = { A: "new file:   ", M: "modified:   ", D: "deleted:    " };
  section(
    "Changes to be committed",
    status.entries.filter((e) => e.x !== "." && e.x !== "?"),
    (e) => names[e.x] ?? "",
  );
  section(
    "Changes not staged for commit",
    status.entries.filter((e) => e.y !== "." && e.y !== "?"),
    (e) => names[e.y] ?? "",
  );
  section(
    "Untracked files",
    status.entries.filter((e) => e.x === "?"),
    () => "",
  );
  if (status.entries.length === 0) lines.push("nothing to commit, working tree clean");
  return joinLines(lines);
}

function mode(value: number | undefined): string {
  return (value ?? 0).toString(8).padStart(6, "0");
}

function short(flag: string): string {
  return flag === "." ? " " : flag;
}

function joinLines(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

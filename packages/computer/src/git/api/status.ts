/**
 * `status`: HEAD, index and work tree side by side, with each side's mode
 * and object id — what porcelain v2 prints. One walk over the three trees;
 * ignored files are skipped unless tracked, and work tree oids come from
 * the index's stat cache where it is still valid (isomorphic-git's walker).
 */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { matchesPathspec, requireRepo } from "../paths.js";

export const ZERO_OID = "0000000000000000000000000000000000000000";

export interface GitSide {
  mode: number;
  oid: string;
}

export interface GitStatusEntry {
  path: string;
  head: GitSide | null;
  index: GitSide | null;
  /** The work tree's mode; its oid only when it was needed to compare. */
  worktree: GitSide | null;
  /** Index vs HEAD: `.`, `A`, `M`, `D`; `?` for untracked. */
  x: "." | "A" | "M" | "D" | "?";
  /** Work tree vs index: `.`, `M`, `D`; `?` for untracked. */
  y: "." | "M" | "D" | "?";
}

export interface GitStatus {
  /** The repository's work tree root. */
  root: string;
  /** Current branch, or null when HEAD is detached. */
  branch: string | null;
  /** HEAD's commit, or null before the first commit. */
  head: string | null;
  /** Changed and untracked paths, sorted; clean paths are left out. */
  entries: GitStatusEntry[];
}

export interface StatusOptions {
  dir?: string;
  /** Repository-relative pathspecs (a directory matches everything under it). */
  paths?: string[];
  /** `normal` (default) shows a wholly untracked directory as `dir/`, like git; `all` lists its files; `no` hides them. */
  untracked?: "normal" | "all" | "no";
}

export async function status(ctx: GitContext, options: StatusOptions = {}): Promise<GitStatus> {
  const root = await requireRepo(ctx, options.dir);
  const branch = (await git.currentBranch({ fs: ctx.fs, dir: root, fullname: false })) ?? null;
  const head = await resolveHead(ctx, root);
  const trees = head ? [git.TREE({ ref: head }), git.WORKDIR(), git.STAGE()] : [git.WORKDIR(), git.STAGE()];
  const results: Array<GitStatusEntry | undefined> = await git.walk({
    fs: ctx.fs,
    dir: root,
    cache: ctx.cache,
    trees,
    map: async (filepath, walked) => {
      const [headEntry, workEntry, stageEntry] = head ? walked : [null, ...walked];
      if (filepath === ".") return undefined;
      if (filepath === ".git" || filepath.startsWith(".git/")) return null;
      if (!headEntry && !stageEntry && workEntry) {
        if (await git.isIgnored({ fs: ctx.fs, dir: root, filepath })) return null;
      }
      if (!pathspecMayMatch(filepath, options.paths)) return null;
      const types = await Promise.all([headEntry?.type(), workEntry?.type(), stageEntry?.type()]);
      // Directories only lead to their entries; a path that is a tree on one side is absent there.
      if (types.every((type) => type === undefined || type === "tree" || type === "special")) return undefined;
      if (!matchesPathspec(filepath, options.paths)) return undefined;
      const side = async (entry: typeof headEntry, type: string | undefined): Promise<GitSide | null> =>
        entry && type === "blob" ? { mode: await entry.mode(), oid: await entry.oid() } : null;
      const headSide = await side(headEntry, types[0]);
      const indexSide = await side(stageEntry, types[2]);
      const workSide = await side(workEntry, types[1]);
      return classify(filepath, headSide, indexSide, workSide);
    },
  });
  let entries = results.filter((entry): entry is GitStatusEntry => entry !== undefined);
  const untracked = options.untracked ?? "normal";
  if (untracked === "no") entries = entries.filter((entry) => entry.x !== "?");
  if (untracked === "normal") entries = collapseUntracked(entries, await trackedDirectories(ctx, root));
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { root, branch, head, entries };
}

/** Git shows the topmost directory holding no tracked file instead of the untracked files in it. */
function collapseUntracked(entries: GitStatusEntry[], tracked: Set<string>): GitStatusEntry[] {
  const seen = new Set<string>();
  const out: GitStatusEntry[] = [];
  for (const entry of entries) {
    if (entry.x !== "?") {
      out.push(entry);
      continue;
    }
    const parts = entry.path.split("/");
    let shown = entry.path;
    for (let depth = 1; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join("/");
      if (!tracked.has(dir)) {
        shown = `${dir}/`;
        break;
      }
    }
    if (seen.has(shown)) continue;
    seen.add(shown);
    out.push(shown === entry.path ? entry : { ...entry, path: shown, worktree: null });
  }
  return out;
}

async function trackedDirectories(ctx: GitContext, root: string): Promise<Set<string>> {
  const dirs = new Set<string>();
  for (const file of await git.listFiles({ fs: ctx.fs, dir: root, cache: ctx.cache })) {
    for (let at = file.indexOf("/"); at !== -1; at = file.indexOf("/", at + 1)) dirs.add(file.slice(0, at));
  }
  return dirs;
}

function classify(
  path: string,
  head: GitSide | null,
  index: GitSide | null,
  worktree: GitSide | null,
): GitStatusEntry | undefined {
  if (!index && !head) return worktree ? { path, head, index, worktree, x: "?", y: "?" } : undefined;
  const x = !index ? "D" : !head ? "A" : same(head, index) ? "." : "M";
  const y = !index ? "." : !worktree ? "D" : same(index, worktree) ? "." : "M";
  if (x === "." && y === ".") return undefined;
  return { path, head, index, worktree, x, y };
}

function same(a: GitSide, b: GitSide): boolean {
  return a.oid === b.oid && a.mode === b.mode;
}

/** Walk into a directory only if some pathspec could match inside it. */
function pathspecMayMatch(filepath: string, specs: readonly string[] | undefined): boolean {
  if (!specs || specs.length === 0) return true;
  return specs.some((spec) => spec === "." || matchesPathspec(filepath, [spec]) || spec.startsWith(`${filepath}/`));
}

export async function resolveHead(ctx: GitContext, root: string): Promise<string | null> {
  try {
    return await git.resolveRef({ fs: ctx.fs, dir: root, ref: "HEAD" });
  } catch {
    return null;
  }
}

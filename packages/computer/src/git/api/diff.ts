/**
 * `diff` / `diffSummary`: two sides of the repository compared path by path
 * — the work tree, the index, or a commit — and printed as git's unified
 * patch (3 lines of context, `\ No newline at end of file`, `Binary files
 * … differ` for content with a NUL in its first 8000 bytes).
 */
import git, { type Walker, type WalkerEntry } from "isomorphic-git";
import type { GitContext } from "../context.js";
import { diffLines, hunks } from "../diff/myers.js";
import { matchesPathspec, requireRepo } from "../paths.js";
import { resolveRevision, shortOid } from "./revisions.js";
import { ZERO_OID } from "./status.js";

/** A side: the work tree, the index, or a revision. */
export type DiffSide = { worktree: true } | { index: true } | { rev: string };

export interface DiffOptions {
  dir?: string;
  /** Default: the index (or HEAD with `cached`). */
  from?: DiffSide;
  /** Default: the work tree (or the index with `cached`). */
  to?: DiffSide;
  /** git's `--cached`: index against HEAD. */
  cached?: boolean;
  paths?: string[];
}

export interface FileDiff {
  path: string;
  status: "A" | "M" | "D";
  oldMode: number | null;
  newMode: number | null;
  oldOid: string;
  newOid: string;
  binary: boolean;
  insertions: number;
  deletions: number;
  /** The file's part of the patch, `diff --git` line included. */
  patch: string;
}

export interface DiffSummary {
  files: Array<Pick<FileDiff, "path" | "status" | "binary" | "insertions" | "deletions">>;
  insertions: number;
  deletions: number;
}

export async function diffFiles(ctx: GitContext, options: DiffOptions = {}): Promise<FileDiff[]> {
  const root = await requireRepo(ctx, options.dir);
  const from = options.from ?? (options.cached ? { rev: "HEAD" } : { index: true });
  const to = options.to ?? (options.cached ? { index: true } : { worktree: true });
  const tracked = new Set(await git.listFiles({ fs: ctx.fs, dir: root, cache: ctx.cache }));
  const trees = [await walker(ctx, root, from), await walker(ctx, root, to)];
  const results: Array<FileDiff | undefined> = await git.walk({
    fs: ctx.fs,
    dir: root,
    cache: ctx.cache,
    trees,
    map: async (filepath, [a, b]) => {
      if (filepath === ".") return undefined;
      if (filepath === ".git" || filepath.startsWith(".git/")) return null;
      const [typeA, typeB] = await Promise.all([a?.type(), b?.type()]);
      if (typeA !== "blob" && typeB !== "blob") return undefined;
      if (!matchesPathspec(filepath, options.paths)) return undefined;
      // The work tree only counts for tracked paths: untracked files are not part of a diff.
      const inWork = (side: DiffSide, type: string | undefined) =>
        type === "blob" && (!("worktree" in side) || tracked.has(filepath));
      return fileDiff(
        ctx,
        root,
        filepath,
        inWork(from, typeA) ? (a ?? null) : null,
        inWork(to, typeB) ? (b ?? null) : null,
      );
    },
  });
  return results.filter((entry): entry is FileDiff => entry !== undefined);
}

export async function diff(ctx: GitContext, options: DiffOptions = {}): Promise<string> {
  return (await diffFiles(ctx, options)).map((file) => file.patch).join("");
}

export async function diffSummary(ctx: GitContext, options: DiffOptions = {}): Promise<DiffSummary> {
  const files = (await diffFiles(ctx, options)).map(({ path, status, binary, insertions, deletions }) => ({
    path,
    status,
    binary,
    insertions,
    deletions,
  }));
  return {
    files,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
  };
}

async function walker(ctx: GitContext, root: string, side: DiffSide): Promise<Walker> {
  if ("worktree" in side) return git.WORKDIR();
  if ("index" in side) return git.STAGE();
  // An unborn HEAD diffs as an empty tree.
  const oid = await resolveRevision(ctx, root, side.rev).catch(() => null);
  return git.TREE({ ref: oid ?? (await git.writeTree({ fs: ctx.fs, dir: root, tree: [] })) });
}

export async function fileDiff(
  ctx: GitContext,
  root: string,
  path: string,
  a: WalkerEntry | null,
  b: WalkerEntry | null,
): Promise<FileDiff | undefined> {
  const oldOid = a ? await a.oid() : ZERO_OID;
  const newOid = b ? await b.oid() : ZERO_OID;
  const oldMode = a ? await a.mode() : null;
  const newMode = b ? await b.mode() : null;
  if (oldOid === newOid && oldMode === newMode) return undefined;
  // The index walker has oids but no content; read those blobs from the object store.
  const read = async (entry: WalkerEntry | null, oid: string): Promise<Uint8Array> => {
    if (!entry || oldOid === newOid) return new Uint8Array();
    const content = await entry.content();
    if (content) return content;
    return (await git.readBlob({ fs: ctx.fs, dir: root, oid, cache: ctx.cache })).blob;
  };
  const oldBytes = await read(a, oldOid);
  const newBytes = await read(b, newOid);
  return renderFileDiff({ path, oldOid, newOid, oldMode, newMode, oldBytes, newBytes });
}

export function renderFileDiff(input: {
  path: string;
  oldOid: string;
  newOid: string;
  oldMode: number | null;
  newMode: number | null;
  oldBytes: Uint8Array;
  newBytes: Uint8Array;
}): FileDiff {
  const { path, oldOid, newOid, oldMode, newMode } = input;
  const status = oldMode === null ? "A" : newMode === null ? "D" : "M";
  const head = [`diff --git a/${path} b/${path}`];
  const octal = (mode: number) => mode.toString(8).padStart(6, "0");
  if (status === "A") head.push(`new file mode ${octal(newMode ?? 0)}`);
  if (status === "D") head.push(`deleted file mode ${octal(oldMode ?? 0)}`);
  if (status === "M" && oldMode !== newMode)
    head.push(`old mode ${octal(oldMode ?? 0)}`, `new mode ${octal(newMode ?? 0)}`);
  const sameMode = status === "M" && oldMode === newMode ? ` ${octal(oldMode ?? 0)}` : "";
  if (oldOid !== newOid) head.push(`index ${shortOid(oldOid)}..${shortOid(newOid)}${sameMode}`);
  const binary = isBinary(input.oldBytes) || isBinary(input.newBytes);
  let insertions = 0;
  let deletions = 0;
  if (oldOid !== newOid) {
    const oldName = status === "A" ? "/dev/null" : `a/${path}`;
    const newName = status === "D" ? "/dev/null" : `b/${path}`;
    if (binary) head.push(`Binary files ${oldName} and ${newName} differ`);
    else {
      const edits = diffLines(splitLines(input.oldBytes), splitLines(input.newBytes));
      insertions = edits.filter((edit) => edit.op === "+").length;
      deletions = edits.filter((edit) => edit.op === "-").length;
      head.push(`--- ${oldName}`, `+++ ${newName}`);
      for (const hunk of hunks(edits)) {
        head.push(
          `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
          ...hunk.lines,
        );
      }
    }
  }
  return {
    path,
    status,
    oldMode,
    newMode,
    oldOid,
    newOid,
    binary,
    insertions,
    deletions,
    patch: `${head.join("\n")}\n`,
  };
}

function range(start: number, lines: number): string {
  return lines === 1 ? `${start}` : `${start},${lines}`;
}

/** Lines without their "\n"; a last line without one carries git's marker so it differs from the same text with one. */
function splitLines(bytes: Uint8Array): string[] {
  if (bytes.byteLength === 0) return [];
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += "\n\\ No newline at end of file";
  return lines;
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

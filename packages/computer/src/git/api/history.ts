/** `log` and `show`: commits from a revision back, and one object with its patch. */
import git, { type ReadCommitResult } from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError } from "../errors.js";
import { requireRepo } from "../paths.js";
import { type FileDiff, fileDiff } from "./diff.js";
import { peelToCommit, resolveRevision } from "./revisions.js";

export interface LogOptions {
  dir?: string;
  /** Default `HEAD`. */
  ref?: string;
  /** Most commits to return. */
  depth?: number;
}

export type LogEntry = ReadCommitResult;

export async function log(ctx: GitContext, options: LogOptions = {}): Promise<LogEntry[]> {
  const root = await requireRepo(ctx, options.dir);
  const rev = options.ref ?? "HEAD";
  let oid: string;
  try {
    oid = await peelToCommit(ctx, root, await resolveRevision(ctx, root, rev));
  } catch (error) {
    if (rev === "HEAD") {
      const branch = (await git.currentBranch({ fs: ctx.fs, dir: root })) ?? "HEAD";
      throw new GitError("EPATHSPEC", `your current branch '${branch}' does not have any commits yet`, {
        cause: error,
      });
    }
    throw error;
  }
  return git.log({
    fs: ctx.fs,
    dir: root,
    ref: oid,
    cache: ctx.cache,
    ...(options.depth !== undefined ? { depth: options.depth } : {}),
  });
}

export interface ShowResult {
  oid: string;
  type: "commit" | "tree" | "blob" | "tag";
  /** Commits: the commit and its changes against the first parent (or the empty tree). */
  commit?: ReadCommitResult;
  files?: FileDiff[];
  /** Blobs: the bytes. */
  content?: Uint8Array;
  /** Trees: the entries. */
  entries?: Array<{ mode: string; path: string; oid: string; type: string }>;
}

export async function show(ctx: GitContext, options: { dir?: string; rev?: string } = {}): Promise<ShowResult> {
  const root = await requireRepo(ctx, options.dir);
  const rev = options.rev ?? "HEAD";
  const colon = rev.indexOf(":");
  if (colon !== -1) {
    // `<rev>:<path>`: a blob or tree inside a commit.
    const commitOid = await peelToCommit(ctx, root, await resolveRevision(ctx, root, rev.slice(0, colon) || "HEAD"));
    const filepath = rev.slice(colon + 1);
    const { oid, type, object } = await git.readObject({
      fs: ctx.fs,
      dir: root,
      oid: commitOid,
      filepath,
      cache: ctx.cache,
    });
    if (type === "blob") return { oid, type, content: object as Uint8Array };
    if (type === "tree") return { oid, type, entries: object as ShowResult["entries"] };
    return { oid, type: type as ShowResult["type"] };
  }
  const oid = await resolveRevision(ctx, root, rev);
  const object = await git.readObject({ fs: ctx.fs, dir: root, oid, format: "parsed", cache: ctx.cache });
  if (object.type === "blob") return { oid, type: "blob", content: object.object as Uint8Array };
  if (object.type === "tree") return { oid, type: "tree", entries: object.object as ShowResult["entries"] };
  if (object.type === "tag") return { oid, type: "tag" };
  const commit = await git.readCommit({ fs: ctx.fs, dir: root, oid, cache: ctx.cache });
  const parent = commit.commit.parent[0];
  const base = parent ?? (await git.writeTree({ fs: ctx.fs, dir: root, tree: [] }));
  const files: Array<FileDiff | undefined> = await git.walk({
    fs: ctx.fs,
    dir: root,
    cache: ctx.cache,
    trees: [git.TREE({ ref: base }), git.TREE({ ref: oid })],
    map: async (filepath, [a, b]) => {
      if (filepath === ".") return undefined;
      const [typeA, typeB] = await Promise.all([a?.type(), b?.type()]);
      if (typeA !== "blob" && typeB !== "blob") return undefined;
      return fileDiff(
        ctx,
        root,
        filepath,
        typeA === "blob" ? (a ?? null) : null,
        typeB === "blob" ? (b ?? null) : null,
      );
    },
  });
  return { oid, type: "commit", commit, files: files.filter((file): file is FileDiff => file !== undefined) };
}

/** Object plumbing: hashObject, catFile, lsTree. */
import git from "isomorphic-git";
import type { GitContext } from "../context.js";
import { GitError, NotARepositoryError } from "../errors.js";
import { findRepoRoot, requireRepo, resolvePath } from "../paths.js";
import { resolveRevision } from "./revisions.js";

export interface HashObjectOptions {
  dir?: string;
  /** Bytes or text to hash; or `path` (absolute) to read. */
  content?: Uint8Array | string;
  path?: string;
  /** Also store the blob in the repository. */
  write?: boolean;
}

export async function hashObject(ctx: GitContext, options: HashObjectOptions): Promise<string> {
  let content = options.content;
  if (content === undefined) {
    if (!options.path) throw new GitError("EUSAGE", "hashObject needs content or a path");
    content = await ctx.fs.promises.readFile(options.path);
  }
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  if (!options.write) return (await git.hashBlob({ object: bytes })).oid;
  const root = await findRepoRoot(ctx, resolvePath("/", options.dir ?? "/"));
  if (!root) throw new NotARepositoryError(resolvePath("/", options.dir ?? "/"));
  return git.writeBlob({ fs: ctx.fs, dir: root, blob: bytes });
}

export interface CatFileResult {
  oid: string;
  type: "blob" | "tree" | "commit" | "tag";
  size: number;
  /** The object's raw content (a tree in git's binary format). */
  content: Uint8Array;
}

/** `rev` is any revision, or `<rev>:<path>`; `filepath` names a path inside the tree it resolves to. */
export async function catFile(
  ctx: GitContext,
  options: { dir?: string; rev: string; filepath?: string },
): Promise<CatFileResult> {
  const root = await requireRepo(ctx, options.dir);
  const colon = options.rev.indexOf(":");
  const base = colon === -1 ? options.rev : options.rev.slice(0, colon) || "HEAD";
  const filepath = colon === -1 ? options.filepath : options.rev.slice(colon + 1);
  const baseOid = await resolveRevision(ctx, root, base);
  const oid =
    filepath === undefined
      ? baseOid
      : (
          await git.readObject({
            fs: ctx.fs,
            dir: root,
            oid: baseOid,
            filepath,
            format: "deflated",
            cache: ctx.cache,
          })
        ).oid;
  const object = await git.readObject({ fs: ctx.fs, dir: root, oid, format: "content", cache: ctx.cache });
  const content = object.object as Uint8Array;
  return { oid, type: object.type as CatFileResult["type"], size: content.byteLength, content };
}

export interface LsTreeEntry {
  mode: string;
  type: "blob" | "tree" | "commit";
  oid: string;
  path: string;
}

export async function lsTree(
  ctx: GitContext,
  options: { dir?: string; rev?: string; path?: string; recursive?: boolean },
): Promise<LsTreeEntry[]> {
  const root = await requireRepo(ctx, options.dir);
  const oid = await resolveRevision(ctx, root, options.rev ?? "HEAD");
  const out: LsTreeEntry[] = [];
  const visit = async (prefix: string, filepath: string | undefined): Promise<void> => {
    const { tree } = await git.readTree({
      fs: ctx.fs,
      dir: root,
      oid,
      cache: ctx.cache,
      ...(filepath ? { filepath } : {}),
    });
    for (const entry of tree) {
      const path = prefix ? `${prefix}/${entry.path}` : entry.path;
      if (entry.type === "tree" && options.recursive) await visit(path, path);
      else out.push({ mode: entry.mode, type: entry.type, oid: entry.oid, path });
    }
  };
  const start = options.path?.replace(/\/+$/, "");
  await visit(start ?? "", start);
  return out;
}

/**
 * Directories and pathspecs. Methods take absolute workspace paths (`dir`
 * defaults to `/`); the CLI resolves its arguments against `cwd`. A
 * repository is the nearest ancestor with a `.git` entry, as in git.
 */

import type { GitContext } from "./context.js";
import { notARepository, PathOutsideRepoError } from "./errors.js";

/** Resolves `path` against `cwd` the POSIX way, without node:path (this file also runs in workerd). */
export function resolvePath(cwd: string, path: string): string {
  const out: string[] = [];
  for (const segment of `${path.startsWith("/") ? "" : cwd}/${path}`.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

export function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

export async function exists(ctx: GitContext, path: string): Promise<boolean> {
  try {
    await ctx.files.lstat(path);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT" || (error as { code?: string }).code === "ENOTDIR") return false;
    throw error;
  }
}

/** The work tree root above `dir`, or null outside any repository. */
export async function findRepoRoot(ctx: GitContext, dir: string): Promise<string | null> {
  let current = resolvePath("/", dir);
  for (;;) {
    if (await exists(ctx, joinPath(current, ".git"))) return current;
    if (current === "/") return null;
    current = current.slice(0, current.lastIndexOf("/")) || "/";
  }
}

export async function requireRepo(ctx: GitContext, dir: string | undefined): Promise<string> {
  const start = resolvePath("/", dir ?? "/");
  const root = await findRepoRoot(ctx, start);
  if (root === null) throw notARepository(start);
  return root;
}

/** A workspace path as a path inside the repository ("." for the root); outside it is EPATHOUTSIDE (128). */
export function toRepoPath(root: string, cwd: string, path: string): string {
  const absolute = resolvePath(cwd, path);
  if (absolute === root) return ".";
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!absolute.startsWith(prefix)) {
    throw new PathOutsideRepoError(path, root);
  }
  return absolute.slice(prefix.length);
}

/** True when `filepath` is `spec` or lies under it; "." matches everything. */
export function matchesPathspec(filepath: string, specs: readonly string[] | undefined): boolean {
  if (!specs || specs.length === 0) return true;
  return specs.some((spec) => spec === "." || filepath === spec || filepath.startsWith(`${spec.replace(/\/$/, "")}/`));
}

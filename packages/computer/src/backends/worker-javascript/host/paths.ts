/**
 * Path rules shared by the module graph and the fs capability: resolve
 * against a directory, stay inside the root, and never pass through a
 * symlink. The symlink check walks every ancestor from `/` with `lstat`, so a
 * link anywhere on the way (the root's own ancestors included) is refused.
 */
import { isFsError, normalizePath, type WorkspaceFilesystem, WorkspaceFsError } from "@cloudflare/dofs";

export function isAtOrUnder(path: string, ancestor: string): boolean {
  return ancestor === "/" || path === ancestor || path.startsWith(`${ancestor}/`);
}

export function dirnameOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** Resolves `path` against `base` (both textual); `..` above `/` is EINVAL. */
export function resolvePath(base: string, path: string, syscall: string): string {
  if (typeof path !== "string" || path === "") throw new WorkspaceFsError("EINVAL", syscall, String(path));
  return normalizePath(path.startsWith("/") ? path : `${base}/${path}`, syscall);
}

export function outsideRoot(syscall: string, path: string, root: string): WorkspaceFsError {
  return new WorkspaceFsError("EACCES", syscall, path, { detail: `permission denied (outside ${root})` });
}

/**
 * Throws ELOOP if any component of `path` up to (and, with `final`, including)
 * the last one is a symlink. Missing components end the walk: nothing below
 * them can be a link.
 */
export async function assertNoSymlinks(
  fs: WorkspaceFilesystem,
  path: string,
  syscall: string,
  final: boolean,
): Promise<void> {
  const segments = path === "/" ? [] : path.slice(1).split("/");
  const last = final ? segments.length : segments.length - 1;
  let current = "";
  for (let index = 0; index < last; index++) {
    current += `/${segments[index]}`;
    let isLink: boolean;
    try {
      isLink = (await fs.lstat(current)).isSymbolicLink;
    } catch (error) {
      if (isFsError(error, "ENOENT") || isFsError(error, "ENOTDIR")) return;
      throw error;
    }
    if (isLink) {
      throw new WorkspaceFsError("ELOOP", syscall, path, {
        detail: `symbolic links are not followed (${current} is a link)`,
      });
    }
  }
}

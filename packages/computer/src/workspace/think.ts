/**
 * The file methods the Think agent framework expects of its workspace, over a
 * `WorkspaceFilesystem`. `new Workspace({ useThink: true })` carries them, and
 * so do clients from `getWorkspace` for such a workspace.
 *
 * Think treats a missing file as an answer, not an error: `readFile`,
 * `readFileBytes` and `stat` give `null` on ENOENT (and ENOTDIR, a missing
 * path under a file), everything else throws the filesystem's error.
 * Relative paths (and glob patterns) are taken under `/workspace`, the
 * directory agents work in.
 */
import { isFsError, readAllBytes, type Stat, type WorkspaceFilesystem } from "@cloudflare/dofs";
import { mimeTypeOf } from "../contracts/mime.js";

/** The directory relative Think paths are resolved under. */
export const THINK_ROOT = "/workspace";

export interface ThinkFileInfo {
  /** Absolute, normalized. */
  path: string;
  name: string;
  /**
   * A symlink is a `"file"` (it is not a directory), as the original reports; its `mimeType` says
   * `inode/symlink`.
   */
  type: "file" | "directory";
  /** From the extension for files (see MIME_TYPES); `inode/directory` and `inode/symlink` otherwise. */
  mimeType: string;
  /** Bytes; 0 for directories. */
  size: number;
  /** ms since the epoch. dofs keeps no birth time, so this is the modification time too. */
  createdAt: number;
  updatedAt: number;
}

export interface ThinkWorkspaceCompatibility {
  /** UTF-8 contents, or null when the file does not exist. */
  readFile(path: string): Promise<string | null>;
  readFileBytes(path: string): Promise<Uint8Array | null>;
  /** Creates missing parent directories. `mimeType` is accepted for Think's signature; the type comes from the name. */
  writeFile(path: string, content: string | Uint8Array, mimeType?: string): Promise<void>;
  /** Entries in name order, paged. */
  readDir(dir?: string, options?: { limit?: number; offset?: number }): Promise<ThinkFileInfo[]>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  /** `*`, `**` and `?` as in `fs.find`; a relative pattern is under /workspace. */
  glob(pattern: string): Promise<ThinkFileInfo[]>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  /** Follows symlinks; null when the path does not exist. */
  stat(path: string): Promise<ThinkFileInfo | null>;
}

/** Absolute paths pass through; relative ones are joined under /workspace (normalization is left to dofs). */
export function resolveThinkPath(path: string): string {
  if (typeof path !== "string") throw new TypeError("path must be a string");
  if (path.startsWith("/")) return path;
  const relative = path.replace(/^(\.\/)+/, "");
  return relative === "" || relative === "." ? THINK_ROOT : `${THINK_ROOT}/${relative}`;
}

/**
 * The filesystem calls the Think methods make: a `WorkspaceFilesystem` fits, and so does any object with
 * these members (a stub's source is typed structurally). Without `readFileBytes` the file is read whole
 * from `readFile`'s stream.
 */
export type ThinkFilesystem = Pick<
  WorkspaceFilesystem,
  "readFile" | "writeFile" | "mkdir" | "readdir" | "rm" | "find" | "stat" | "lstat"
> &
  Partial<Pick<WorkspaceFilesystem, "readFileBytes">>;

export function thinkMethods(fs: ThinkFilesystem): ThinkWorkspaceCompatibility {
  const readBytes = async (path: string): Promise<Uint8Array> =>
    fs.readFileBytes ? fs.readFileBytes(path) : readAllBytes(await fs.readFile(path));
  return {
    readFile: (path) => orNull(() => fs.readFile(resolveThinkPath(path), "utf8")),
    readFileBytes: (path) => orNull(() => readBytes(resolveThinkPath(path))),
    writeFile: async (path, content) => {
      const target = resolveThinkPath(path);
      const parent = target.slice(0, target.lastIndexOf("/"));
      if (parent !== "") await fs.mkdir(parent, { recursive: true });
      await fs.writeFile(target, content);
    },
    readDir: async (dir = THINK_ROOT, options = {}) => {
      const entries = await fs.readdir(resolveThinkPath(dir), options);
      return entries.map((entry) =>
        fileInfo(joinChild(entry.parentPath, entry.name), entry.name, entry.size, entry.mtime, kindOf(entry)),
      );
    },
    rm: (path, options = {}) => fs.rm(resolveThinkPath(path), options),
    glob: async (pattern) => {
      const { dir, rest } = splitGlob(resolveThinkPath(pattern));
      // An empty pattern below the directory would match everything under it; "/" names no entries.
      if (rest === "") return [];
      const matches = await orNull(() => fs.find(dir, rest));
      const infos: ThinkFileInfo[] = [];
      // find gives paths and types only; a stat each fills in size and times (lstat: a match is the link itself).
      for (const match of matches ?? []) {
        const stat = await orNull(() => fs.lstat(match.path));
        if (stat) infos.push(statInfo(match.path, stat));
      }
      return infos;
    },
    mkdir: (path, options = {}) => fs.mkdir(resolveThinkPath(path), options),
    stat: async (path) => {
      const target = resolveThinkPath(path);
      const stat = await orNull(() => fs.stat(target));
      return stat === null ? null : statInfo(normalizeForInfo(target), stat);
    },
  };
}

/** Splits `/a/b/**\/*.ts` into the literal directory `/a/b` and the pattern below it, which `find` matches. */
function splitGlob(pattern: string): { dir: string; rest: string } {
  const segments = pattern.split("/").filter((segment) => segment !== "");
  const literal: string[] = [];
  while (literal.length < segments.length - 1 && !/[*?]/.test(segments[literal.length] as string)) {
    literal.push(segments[literal.length] as string);
  }
  // A fully literal pattern names one path: its parent is searched for exactly that name.
  const rest = segments.slice(literal.length).join("/");
  return { dir: `/${literal.join("/")}`, rest };
}

type Kind = "file" | "directory" | "symlink";

function kindOf(entry: { isDirectory: boolean; isSymbolicLink: boolean }): Kind {
  if (entry.isSymbolicLink) return "symlink";
  return entry.isDirectory ? "directory" : "file";
}

function statInfo(path: string, stat: Stat): ThinkFileInfo {
  return fileInfo(path, stat.name, stat.size, stat.mtime, kindOf(stat));
}

function fileInfo(path: string, name: string, size: number, mtime: number, type: Kind): ThinkFileInfo {
  const mimeType = type === "file" ? mimeTypeOf(name) : type === "directory" ? "inode/directory" : "inode/symlink";
  const reported = type === "directory" ? "directory" : "file";
  return {
    path,
    name,
    type: reported,
    mimeType,
    size: type === "directory" ? 0 : size,
    createdAt: mtime,
    updatedAt: mtime,
  };
}

function joinChild(parent: string, name: string): string {
  return parent === "/" ? `/${name}` : `${parent}/${name}`;
}

/** `stat` succeeded, so the path is valid; collapse `//`, `.` and a trailing `/` the way dofs does. */
function normalizeForInfo(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isFsError(error, "ENOENT") || isFsError(error, "ENOTDIR")) return null;
    throw error;
  }
}

/** Narrows a Workspace (or a client) built with `useThink: true` to one that has the Think methods. */
export function isThinkWorkspace<T extends { readonly useThink: boolean }>(
  workspace: T,
): workspace is T & ThinkWorkspaceCompatibility {
  return workspace.useThink === true;
}

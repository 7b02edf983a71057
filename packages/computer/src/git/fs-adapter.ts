/**
 * The node-like `fs.promises` isomorphic-git expects, over a workspace's
 * `WorkspaceFilesystem`. isomorphic-git branches on `error.code` (ENOENT,
 * ENOTDIR, EEXIST, EISDIR), which `WorkspaceFsError` already carries, so
 * errors pass through untouched.
 */
import type { Stat, WorkspaceFilesystem } from "@cloudflare/dofs";

/** The stat shape isomorphic-git reads: Node's `Stats` fields plus the three type predicates. */
export interface GitFsStat {
  type: "file" | "dir" | "symlink";
  /** Type bits included (0o100644, 0o040755, 0o120000), as Node reports them. */
  mode: number;
  size: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  uid: number;
  gid: number;
  dev: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface GitFsPromises {
  readFile(path: string, options?: { encoding?: string } | string): Promise<Uint8Array | string>;
  writeFile(path: string, data: Uint8Array | string, options?: { mode?: number } | string): Promise<void>;
  mkdir(path: string, options?: { mode?: number }): Promise<void>;
  rmdir(path: string): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  unlink(path: string): Promise<void>;
  stat(path: string): Promise<GitFsStat>;
  lstat(path: string): Promise<GitFsStat>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string): Promise<string>;
  symlink(target: string, path: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
}

/** isomorphic-git detects a promise API by an enumerable own `promises` property. */
export interface GitFs {
  promises: GitFsPromises;
}

const TYPE_BITS = { file: 0o100000, dir: 0o040000, symlink: 0o120000 } as const;

export function createGitFs(fs: WorkspaceFilesystem): GitFs {
  const promises: GitFsPromises = {
    async readFile(path, options) {
      const encoding = typeof options === "string" ? options : options?.encoding;
      if (encoding === "utf8" || encoding === "utf-8") return fs.readFile(path, "utf8");
      return fs.readFileBytes(path);
    },
    async writeFile(path, data, options) {
      const mode = typeof options === "object" && options.mode !== undefined ? options.mode : undefined;
      await fs.writeFile(path, data, mode === undefined ? {} : { mode });
    },
    async mkdir(path, options) {
      await fs.mkdir(path, options?.mode === undefined ? {} : { mode: options.mode });
    },
    async rmdir(path) {
      await fs.rm(path);
    },
    async rm(path, options) {
      await fs.rm(path, { recursive: options?.recursive === true, force: options?.force === true });
    },
    async unlink(path) {
      await fs.rm(path);
    },
    async stat(path) {
      return toGitStat(await fs.stat(path));
    },
    async lstat(path) {
      return toGitStat(await fs.lstat(path));
    },
    async readdir(path) {
      return (await fs.readdir(path)).map((entry) => entry.name);
    },
    async readlink(path) {
      return fs.readlink(path);
    },
    async symlink(target, path) {
      await fs.symlink(target, path);
    },
    async chmod(path, mode) {
      await fs.chmod(path, mode & 0o7777);
    },
  };
  return { promises };
}

export function toGitStat(stat: Stat): GitFsStat {
  const type = stat.isDirectory ? "dir" : stat.isSymbolicLink ? "symlink" : "file";
  return {
    type,
    mode: TYPE_BITS[type] | (type === "symlink" ? 0 : stat.mode),
    size: stat.size,
    ino: stat.inode,
    mtimeMs: stat.mtime,
    // dofs keeps one time per inode; git compares ctime only to spot changes, which mtime also covers.
    ctimeMs: stat.mtime,
    uid: 0,
    gid: 0,
    dev: 1,
    isFile: () => type === "file",
    isDirectory: () => type === "dir",
    isSymbolicLink: () => type === "symlink",
  };
}

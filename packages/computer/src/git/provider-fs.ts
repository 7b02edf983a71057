/**
 * isomorphic-git's `fs` over a node-like filesystem provider: what a
 * workspace of the original's shape hands out from `provider()` (dofs's
 * `SQLiteWorkspaceProvider`). Every call goes through an async function, so
 * a provider method that throws synchronously still reaches isomorphic-git
 * as a rejection (it waits forever on some paths otherwise).
 */
import type { GitFs, GitFsStat } from "./fs-adapter.js";

/** The stat fields isomorphic-git reads, as a node-like provider reports them (no `type`: the predicates say it). */
export type GitProviderStats = Omit<GitFsStat, "type">;

/**
 * The part of a node-like filesystem provider a git client uses. Structural:
 * dofs's `SQLiteWorkspaceProvider` (the original's `ws.provider()`) fits.
 */
export interface GitWorkspaceProvider {
  readFile(path: string, options?: { encoding?: "utf8" }): Promise<Uint8Array | string>;
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<unknown>;
  rmdir(path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  stat(path: string): Promise<GitProviderStats>;
  lstat(path: string): Promise<GitProviderStats>;
  readdir(path: string): Promise<unknown[]>;
  readlink(path: string): Promise<string>;
  symlink(target: string, path: string): Promise<void>;
  /** Where the provider can change modes (dofs's does, synchronously). */
  chmodSync?(path: string, mode: number): void;
}

function toGitStat(stats: GitProviderStats): GitFsStat {
  const type = stats.isDirectory() ? "dir" : stats.isSymbolicLink() ? "symlink" : "file";
  return {
    type,
    mode: stats.mode,
    size: stats.size,
    ino: stats.ino,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    uid: stats.uid,
    gid: stats.gid,
    dev: stats.dev,
    isFile: () => type === "file",
    isDirectory: () => type === "dir",
    isSymbolicLink: () => type === "symlink",
  };
}

export function providerGitFs(provider: GitWorkspaceProvider): GitFs {
  const remove = async (path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> => {
    let stats: GitProviderStats;
    try {
      stats = await provider.lstat(path);
    } catch (error) {
      if (options?.force && (error as { code?: string }).code === "ENOENT") return;
      throw error;
    }
    if (!stats.isDirectory()) return provider.unlink(path);
    if (options?.recursive) {
      for (const name of await provider.readdir(path))
        await remove(`${path === "/" ? "" : path}/${String(name)}`, options);
    }
    await provider.rmdir(path);
  };
  return {
    promises: {
      async readFile(path, options) {
        const encoding = typeof options === "string" ? options : options?.encoding;
        if (encoding === "utf8" || encoding === "utf-8") return provider.readFile(path, { encoding: "utf8" });
        const data = await provider.readFile(path);
        return typeof data === "string" ? new TextEncoder().encode(data) : data;
      },
      async writeFile(path, data, options) {
        const mode = typeof options === "object" ? options.mode : undefined;
        await provider.writeFile(path, data, mode === undefined ? undefined : { mode });
      },
      async mkdir(path, options) {
        await provider.mkdir(path, options?.mode === undefined ? undefined : { mode: options.mode });
      },
      async rmdir(path) {
        await provider.rmdir(path);
      },
      rm: remove,
      async unlink(path) {
        await provider.unlink(path);
      },
      async stat(path) {
        return toGitStat(await provider.stat(path));
      },
      async lstat(path) {
        return toGitStat(await provider.lstat(path));
      },
      async readdir(path) {
        return (await provider.readdir(path)).map(String);
      },
      async readlink(path) {
        return provider.readlink(path);
      },
      async symlink(target, path) {
        await provider.symlink(target, path);
      },
      async chmod(path, mode) {
        provider.chmodSync?.(path, mode & 0o7777);
      },
    },
  };
}

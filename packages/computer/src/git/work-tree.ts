/**
 * What git's verbs do to the work tree beyond isomorphic-git's own calls:
 * test a path, create a directory chain, list a directory, remove a tree.
 * Two sources: a workspace's `WorkspaceFilesystem` (its own recursive
 * operations), or any isomorphic-git `fs` (a provider's), built from its
 * node-like single-step calls.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { GitFs } from "./fs-adapter.js";

export interface WorkTreeFiles {
  /** Rejects with ENOENT / ENOTDIR when `path` is not there. */
  lstat(path: string): Promise<unknown>;
  /** `mkdir -p`. */
  mkdirp(path: string): Promise<void>;
  /** Entry names of a directory. */
  list(path: string): Promise<string[]>;
  /** `rm -f`, and with `recursive`, `rm -rf`. */
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
}

export function workspaceFiles(fs: WorkspaceFilesystem): WorkTreeFiles {
  return {
    lstat: (path) => fs.lstat(path),
    mkdirp: async (path) => {
      await fs.mkdir(path, { recursive: true });
    },
    list: async (path) => (await fs.readdir(path)).map((entry) => entry.name),
    remove: (path, options) => fs.rm(path, { recursive: options?.recursive === true, force: true }),
  };
}

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

export function gitFsFiles(fs: GitFs): WorkTreeFiles {
  const { promises } = fs;
  const remove = async (path: string, options?: { recursive?: boolean }): Promise<void> => {
    let stat: { isDirectory(): boolean };
    try {
      stat = await promises.lstat(path);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return;
      throw error;
    }
    if (!stat.isDirectory()) return promises.unlink(path);
    if (options?.recursive) {
      for (const name of await promises.readdir(path)) await remove(`${path === "/" ? "" : path}/${name}`, options);
    }
    await promises.rmdir(path);
  };
  return {
    lstat: (path) => promises.lstat(path),
    mkdirp: async (path) => {
      let at = "";
      for (const segment of path.split("/").filter(Boolean)) {
        at += `/${segment}`;
        try {
          await promises.mkdir(at);
        } catch (error) {
          if (codeOf(error) !== "EEXIST") throw error;
        }
      }
    },
    list: (path) => promises.readdir(path),
    remove,
  };
}

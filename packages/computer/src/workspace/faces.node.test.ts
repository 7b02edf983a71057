/**
 * computer's faces of the store under the one contract (dofs test/faces.ts):
 * the fs client's in-isolate filesystem, the worker-shell's just-bash
 * filesystem, the worker-javascript sandbox's `node:fs/promises` (through its
 * bridge to the host's FsCapability, as a Dynamic Worker reaches it), git's
 * two isomorphic-git filesystems and the AI tools' file store. Each sits on a
 * real dofs store in SQLite; a difference from the contract is recorded here
 * with its reason (and in docs/architecture.md), never hidden.
 */
import { SQLiteWorkspaceProvider, toShape, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import {
  ALL_OPS,
  describeFace,
  type FaceDifference,
  filesystemFace,
  kindOf,
  type StoreFace,
} from "../../../dofs/test/faces.js";
import { FsCapability } from "../backends/worker-javascript/host/fs-capability.js";
import { resolveOptions } from "../backends/worker-javascript/host/options.js";
import type { HostCall } from "../backends/worker-javascript/protocol/messages.js";
import { setHost } from "../backends/worker-javascript/sandbox/bridge.js";
import * as fsPromises from "../backends/worker-javascript/sandbox/fs-promises.js";
import { WorkspaceFsAdapter } from "../backends/worker-shell/sandbox/fs-adapter.js";
import { localFilesystem } from "../contracts/fs-client.js";
import { createGitFs, type GitFsPromises } from "../git/fs-adapter.js";
import { providerGitFs } from "../git/provider-fs.js";
import { WorkspaceFileStore } from "../tools/file-store.js";

function store(): WorkspaceFilesystem {
  return new WorkspaceFilesystem(openNodeDatabase());
}

describeFace("computer fs-client (in-isolate)", ALL_OPS, async () => filesystemFace(localFilesystem(store())));

describeFace("worker-shell WorkspaceFsAdapter (just-bash's IFileSystem)", ALL_OPS, async () => {
  const fs = new WorkspaceFsAdapter(localFilesystem(store()));
  return {
    writeFile: (path, text) => fs.writeFile(path, text),
    readFile: (path) => fs.readFile(path),
    stat: async (path) => {
      const stat = await fs.stat(path);
      return { kind: kindOf(stat), size: stat.size };
    },
    lstat: async (path) => {
      const stat = await fs.lstat(path);
      return { kind: kindOf(stat), size: stat.size };
    },
    mkdir: (path) => fs.mkdir(path),
    readdir: (path) => fs.readdir(path),
    unlink: (path) => fs.rm(path),
    rmdir: (path) => fs.rm(path),
    symlink: (target, path) => fs.symlink(target, path),
    readlink: (path) => fs.readlink(path),
  };
});

describeFace(
  "worker-javascript node:fs/promises (sandbox, over the bridge to FsCapability)",
  ALL_OPS,
  async () => {
    const options = resolveOptions({ loader: { load: () => Promise.reject(new Error("unused")) } as never, root: "/" });
    const capability = new FsCapability(store(), options, "/");
    // What host/capabilities.ts does for a Dynamic Worker: the value or the error's shape, as data.
    setHost(async (call: HostCall) => {
      if (call.op !== "call") throw new Error("only capability calls here");
      try {
        return { ok: true, value: structuredClone(await capability.call(call.method, call.args)) };
      } catch (error) {
        return { ok: false, error: toShape(error) };
      }
    });
    const kind = (stat: { isFile(): boolean; isDirectory(): boolean; size: number }) => ({
      kind: kindOf(stat),
      size: stat.size,
    });
    return {
      writeFile: (path, text) => fsPromises.writeFile(path, text),
      readFile: async (path) => (await fsPromises.readFile(path, "utf8")) as string,
      stat: async (path) => kind(await fsPromises.stat(path)),
      lstat: async (path) => kind(await fsPromises.lstat(path)),
      mkdir: async (path) => {
        await fsPromises.mkdir(path);
      },
      readdir: async (path) => (await fsPromises.readdir(path)) as string[],
      unlink: (path) => fsPromises.rm(path),
      rmdir: (path) => fsPromises.rm(path),
      symlink: (target, path) => fsPromises.symlink(target, path),
      readlink: (path) => fsPromises.readlink(path),
    };
  },
  {
    "a symlink reads back its target; lstat sees the link, stat the file": {
      outcome: { code: "ELOOP" },
      why: "the backend never does I/O through a symlink (host/paths.ts assertNoSymlinks): stat of a link is ELOOP",
    },
  },
);

function gitFace(promises: GitFsPromises): StoreFace {
  const kind = async (stat: Promise<{ isFile(): boolean; isDirectory(): boolean; size: number }>) => {
    const value = await stat;
    return { kind: kindOf(value), size: value.size };
  };
  return {
    writeFile: (path, text) => promises.writeFile(path, text),
    readFile: async (path) => (await promises.readFile(path, { encoding: "utf8" })) as string,
    stat: (path) => kind(promises.stat(path)),
    lstat: (path) => kind(promises.lstat(path)),
    mkdir: (path) => promises.mkdir(path),
    readdir: (path) => promises.readdir(path),
    unlink: (path) => promises.unlink(path),
    rmdir: (path) => promises.rmdir(path),
    symlink: (target, path) => promises.symlink(target, path),
    readlink: (path) => promises.readlink(path),
  };
}

describeFace("git fs-adapter (isomorphic-git over WorkspaceFilesystem)", ALL_OPS, async () =>
  gitFace(createGitFs(store()).promises),
);

describeFace("git provider-fs (isomorphic-git over SQLiteWorkspaceProvider)", ALL_OPS, async () =>
  gitFace(providerGitFs(new SQLiteWorkspaceProvider(openNodeDatabase())).promises),
);

/** The file store answers a miss with null, not ENOENT, and its write makes missing parents: its contract. */
const FILE_STORE_DIFFERENCES: Record<string, FaceDifference> = {
  "reading a missing file": { outcome: { value: null }, why: "readAll answers null for nothing there" },
  "stat of a missing path": { outcome: { value: null }, why: "stat answers null for nothing there" },
  "stat through a file": { outcome: { value: null }, why: "stat answers null for nothing there" },
  "writing into a missing directory": {
    outcome: { value: undefined },
    why: "write creates missing parents (the tools write anywhere under the workspace)",
  },
  "unlink removes a file": { outcome: { value: null }, why: "stat answers null for nothing there" },
};

describeFace(
  "tools WorkspaceFileStore",
  ["writeFile", "readFile", "stat", "unlink"],
  async () => {
    const files = new WorkspaceFileStore({ fs: store() });
    return {
      writeFile: (path, text) => files.write(path, new TextEncoder().encode(text)),
      readFile: async (path) => {
        const bytes = await files.readAll(path);
        return (bytes === null ? null : new TextDecoder().decode(bytes)) as string;
      },
      stat: async (path) => {
        const info = await files.stat(path);
        return info === null ? null : { kind: "file", size: info.size };
      },
      unlink: (path) => files.remove(path),
    };
  },
  FILE_STORE_DIFFERENCES,
);

/**
 * dofs' two faces of the store under the one contract (test/faces.ts): the
 * `WorkspaceFilesystem` every other face sits on, and the node:fs-shaped
 * `SQLiteWorkspaceProvider`. The faces of computer and computerd run the same
 * contract in their own projects.
 */
import { openNodeDatabase } from "../src/database.node.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { SQLiteWorkspaceProvider } from "../src/provider.js";
import { ALL_OPS, describeFace, filesystemFace, kindOf } from "./faces.js";

describeFace("dofs WorkspaceFilesystem", ALL_OPS, async () =>
  filesystemFace(new WorkspaceFilesystem(openNodeDatabase())),
);

describeFace("dofs SQLiteWorkspaceProvider", ALL_OPS, async () => {
  const provider = new SQLiteWorkspaceProvider(openNodeDatabase());
  return {
    writeFile: (path, text) => provider.writeFile(path, text),
    readFile: async (path) => (await provider.readFile(path, "utf8")) as string,
    stat: async (path) => {
      const stat = await provider.stat(path);
      return { kind: kindOf(stat), size: Number(stat.size) };
    },
    lstat: async (path) => {
      const stat = await provider.lstat(path);
      return { kind: kindOf(stat), size: Number(stat.size) };
    },
    mkdir: async (path) => {
      await provider.mkdir(path);
    },
    readdir: async (path) => (await provider.readdir(path)) as string[],
    unlink: (path) => provider.unlink(path),
    rmdir: (path) => provider.rmdir(path),
    symlink: (target, path) => provider.symlink(target, path),
    readlink: (path) => provider.readlink(path),
  };
});

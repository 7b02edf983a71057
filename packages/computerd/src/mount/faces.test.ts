/**
 * computerd's face of the store under the one contract (dofs test/faces.ts):
 * `MountFs`, the FUSE operations a container's `/workspace` is served by,
 * driven without a kernel (the file calls as the kernel makes them: create,
 * write and release; open, read and release). Errors are errnos here; the
 * adapter names them (`-2` is ENOENT) so the codes compare with the other
 * faces'. Differences are recorded with their reason, as in
 * docs/architecture.md.
 */
import { constants } from "node:fs";
import { constants as os } from "node:os";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { ALL_OPS, describeFace, type EntryKind, type StoreFace } from "../../../dofs/test/faces.js";
import { ErrnoError } from "./errno.js";
import { type FuseStat, MountFs } from "./mount-fs.js";

const MOUNT = "/workspace";
const ERRNO_NAMES = new Map(Object.entries(os.errno).map(([name, errno]) => [-errno, name]));

/** An errno error as the other faces fail: with a POSIX `code`. */
function named(error: unknown): unknown {
  if (error instanceof ErrnoError) return Object.assign(error, { code: ERRNO_NAMES.get(error.errno) });
  return error;
}

async function posix<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw named(error);
  }
}

function kindOf(stat: FuseStat): EntryKind {
  const type = stat.mode & constants.S_IFMT;
  if (type === constants.S_IFDIR) return "directory";
  if (type === constants.S_IFLNK) return "symlink";
  return "file";
}

async function openMountFs(): Promise<StoreFace> {
  const db = openNodeDatabase();
  await new WorkspaceFilesystem(db).mkdir(MOUNT, { recursive: true });
  const fs = new MountFs(db, MOUNT);
  const stat = (path: string) =>
    posix(() => {
      const found = fs.getattr(path);
      return { kind: kindOf(found), size: found.size };
    });
  return {
    writeFile: (path, text) =>
      posix(async () => {
        // As the kernel does for open(O_CREAT | O_TRUNC): CREATE for a new name, OPEN with O_TRUNC for one that exists.
        const fd =
          fs.statIfExists(path) === undefined
            ? await fs.create(path, 0o100644)
            : fs.open(path, constants.O_WRONLY | constants.O_TRUNC);
        const bytes = Buffer.from(text);
        fs.write(fd, bytes, bytes.length, 0);
        fs.release(fd);
      }),
    readFile: (path) =>
      posix(() => {
        const fd = fs.open(path, constants.O_RDONLY);
        const buffer = Buffer.alloc(fs.fgetattr(fd).size);
        const read = fs.read(fd, buffer, buffer.length, 0);
        fs.release(fd);
        return buffer.subarray(0, read).toString();
      }),
    stat,
    lstat: stat,
    mkdir: (path) => posix(() => fs.mkdir(path, 0o755)),
    readdir: (path) => posix(async () => (await fs.readdir(path)).filter((name) => name !== "." && name !== "..")),
    unlink: (path) => posix(() => fs.unlink(path)),
    rmdir: (path) => posix(() => fs.rmdir(path)),
    symlink: (target, path) => posix(() => fs.symlink(target, path)),
    readlink: (path) => posix(() => fs.readlink(path)),
  };
}

describeFace("computerd MountFs (FUSE operations)", ALL_OPS, openMountFs, {
  "stat through a file": {
    outcome: { code: "ENOTDIR" },
    why: "FUSE answers as Linux does (a path through a file is ENOTDIR); the original's store says ENOENT",
  },
  "a symlink reads back its target; lstat sees the link, stat the file": {
    outcome: { value: ["/a.txt", "symlink", { kind: "symlink", size: 6 }] },
    why: "getattr is lstat: following a link is the kernel's work (it reads the link and looks the target up)",
  },
});

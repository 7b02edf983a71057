/**
 * The callback shape both FUSE bindings share (fuse-native and fuse-napi
 * descend from the same API): each op gets its arguments and a final
 * `cb(errno, value?)`; read and write answer a byte count in the status
 * position instead. `adapt` turns a synchronous or async MountFs method into
 * such an op, maps thrown errors to errno, and feeds the optional trace.
 */
import { errnoOf } from "./errno.js";
import { UNCHANGED } from "./inode-owners.js";
import type { MountFs } from "./mount-fs.js";
import type { FuseTrace } from "./trace.js";

export type Callback = (errno: number, ...values: unknown[]) => void;
export type Op = (...args: unknown[]) => void;

export function opAdapter(trace: FuseTrace | undefined) {
  return <A extends unknown[]>(name: string, body: (...args: A) => unknown, countInStatus = false): Op =>
    (...args: unknown[]): void => {
      const cb = args.pop() as Callback;
      const started = trace ? performance.now() : 0;
      const done = (errno: number, value?: unknown): void => {
        trace?.record(name, performance.now() - started, errno);
        if (countInStatus) cb(errno === 0 ? (value as number) : errno);
        else if (value === undefined) cb(errno);
        else cb(errno, value);
      };
      try {
        const result = body(...(args as A));
        if (result instanceof Promise)
          result.then(
            (value) => done(0, value),
            (error) => done(errnoOf(error)),
          );
        else done(0, result);
      } catch (error) {
        done(errnoOf(error));
      }
    };
}

/**
 * The ops both drivers map the same way onto MountFs: by path, plus the ones
 * on an open handle (whose path libfuse 3 may pass as null, and which go by
 * fd anyway). Each driver adds what differs: fgetattr, readdir, utimens,
 * flush, copy_file_range.
 */
export function sharedOps(fs: MountFs, op: ReturnType<typeof opAdapter>): Record<string, Op> {
  return {
    getattr: op("getattr", (path: string) => fs.getattr(path)),
    statfs: op("statfs", () => fs.statfs()),
    mkdir: op("mkdir", (path: string, mode: number) => fs.mkdir(path, mode)),
    rmdir: op("rmdir", (path: string) => fs.rmdir(path)),
    unlink: op("unlink", (path: string) => fs.unlink(path)),
    rename: op("rename", (from: string, to: string) => fs.rename(from, to)),
    link: op("link", (from: string, to: string) => fs.link(from, to)),
    symlink: op("symlink", (target: string, path: string) => fs.symlink(target, path)),
    readlink: op("readlink", (path: string) => fs.readlink(path)),
    chmod: op("chmod", (path: string, mode: number) => fs.chmod(path, mode)),
    // Held in memory per inode (inode-owners.ts); without the caller (fuse-native) no rule is checked here.
    chown: op("chown", (path: string, uid: number, gid: number) => fs.chown(path, idOf(uid), idOf(gid))),
    mknod: op("mknod", async (path: string, mode: number, rdev: number) => {
      await fs.mknod(path, mode, undefined, Number(rdev ?? 0));
    }),
    create: op("create", (path: string, mode: number) => fs.create(path, mode)),
    open: op("open", (path: string, flags: number) => fs.open(path, flags)),
    truncate: op("truncate", (path: string, size: number) => fs.truncate(path, size)),
    ftruncate: op("ftruncate", (_path: string | null, fd: number, size: number) => fs.ftruncate(fd, size)),
    fsync: op("fsync", (_path: string | null, _datasync: number, fd: number) => fs.fsync(fd)),
    release: op("release", (_path: string | null, fd: number) => fs.release(fd)),
    fsyncdir: op("fsyncdir", () => fs.fsyncdir()),
    // RELEASE comes after close(2) returned; FLUSH within it: a store that outlives the daemon takes the close there.
    ...(fs.persists ? { flush: op("flush", (_path: string | null, fd: number) => fs.closed(fd)) } : {}),
    // read/write answer a byte count; the buffer belongs to the binding and is only copied from or into.
    read: op(
      "read",
      (_path: string | null, fd: number, buffer: Buffer, length: number, position: number) =>
        fs.read(fd, buffer, length, position),
      true,
    ),
    write: op(
      "write",
      (_path: string | null, fd: number, buffer: Buffer, length: number, position: number) =>
        fs.write(fd, buffer, length, position),
      true,
    ),
  };
}

/** A uid or gid as a binding passes it: -1 (or its uint32 form) leaves it unchanged. */
export function idOf(id: number): number {
  return id < 0 ? UNCHANGED : id;
}

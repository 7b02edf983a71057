/**
 * The FUSE mount on fuse-napi 2.3.1 (libfuse 3's high-level API), patched
 * (`patches/fuse-napi@2.3.1.patch`) to set `use_ino` and `hard_remove` in
 * libfuse 3's init config, where they must go (libfuse 3 refuses them as -o
 * options), and to always build from source against the system libfuse 3.
 * Against fuse-native (libfuse 2) it brings:
 * - writes up to max_write (1 MiB) per request instead of 128 KiB;
 * - `utimensat` with `UTIME_OMIT` (`touch -m`) and nanosecond times, exactly;
 * - files unlinked while open are unlinked for real (hard_remove): no
 *   `.fuse_hidden*` names, the handle ops arrive with a null path;
 * - copy_file_range (cp, fs.copyFile) answered by sharing stored chunks;
 * - pages kept across opens (keep_cache, except for a file with several
 *   names) with explicit invalidation after a sync apply (our patch's
 *   `invalidatePath`), so reads of unchanged files never reach the daemon;
 * - requests answered on this process's own loop (our patch's main loop,
 *   `COMPUTERD_FUSE_LOOP`), two thread wake-ups fewer per request;
 * - the kernel's writeback cache, when `COMPUTERD_FUSE_WRITEBACK_CACHE` is on.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { withTimeout } from "@cloudflare/computer-rpc";
import type { MountDriver } from "./driver.js";
import { EINVAL, ErrnoError } from "./errno.js";
import { fallocate } from "./fallocate.js";
import { type Callback, idOf, type Op, opAdapter, sharedOps } from "./fuse-callbacks.js";
import type { Caller } from "./inode-owners.js";
import type { FuseStat, TimeRequest } from "./mount-fs.js";
import { MountFsDriver } from "./mount-fs-driver.js";
import { commitAndUnmount } from "./mount-point.js";
import { teachKernel } from "./teach-kernel.js";

const run = promisify(execFile);
const MOUNT_TIMEOUT_MS = 5_000;
const INVALIDATE_BATCH = 256;
/** The ops that can change a file with several names (MountFs counts those changes in `sharedChanges`). */
const SHARED_CHANGE_OPS = [
  "write",
  "truncate",
  "ftruncate",
  "fallocate",
  "chmod",
  "chown",
  "unlink",
  "rename",
  "link",
  "open",
  "utimensWithHandle",
  "copyFileRange",
];
/** `FUSE_CAP_AUTO_INVAL_DATA`: off with kernel_cache, where invalidation is explicit (afterApply). */
const FUSE_CAP_AUTO_INVAL_DATA = 1 << 12;
/** libfuse 3's `FUSE_CAP_WRITEBACK_CACHE` (fuse_common.h). */
const FUSE_CAP_WRITEBACK_CACHE = 1 << 16;
/** Linux's `UTIME_NOW` / `UTIME_OMIT` as fuse-napi hands them over (`Fuse.UTIME_NOW`). */
const UTIME_NOW = 0x3fffffff;
const UTIME_OMIT = 0x3ffffffe;

interface Timespec {
  seconds: number | bigint;
  nanoseconds: number;
}

/** A utimens time as MountFs takes it: UTIME_OMIT leaves it alone, UTIME_NOW is the daemon's now. */
function timeRequest(time: Timespec): TimeRequest {
  if (time.nanoseconds === UTIME_OMIT) return undefined;
  if (time.nanoseconds === UTIME_NOW) return "now";
  return BigInt(time.seconds) * 1_000_000_000n + BigInt(time.nanoseconds);
}

/** The stat fuse-napi takes with nanosecond times: each time as a timespec instead of whole ms. */
type TimespecStat = Omit<FuseStat, "atime" | "mtime" | "ctime" | "atimeNsec" | "mtimeNsec" | "ctimeNsec"> &
  Record<"atime" | "mtime" | "ctime", Timespec>;

function withTimespecs(stat: FuseStat): TimespecStat {
  const { atimeNsec, mtimeNsec, ctimeNsec, ...rest } = stat;
  return {
    ...rest,
    atime: { seconds: BigInt(Math.floor(stat.atime / 1000)), nanoseconds: atimeNsec },
    mtime: { seconds: BigInt(Math.floor(stat.mtime / 1000)), nanoseconds: mtimeNsec },
    ctime: { seconds: BigInt(Math.floor(stat.ctime / 1000)), nanoseconds: ctimeNsec },
  };
}
interface Connection {
  maxWrite: number;
  capable: number;
  want: number;
}
interface FuseInstance {
  mount(cb: (error: Error | null) => void): void;
  unmount(cb: (error: Error | null) => void): void;
  /** Our patch: fuse_invalidate_path (the inode's attributes and pages); a path the kernel never saw is no error. */
  invalidatePath(path: string, cb: (error: Error | null) => void): void;
  /** Our patch: FUSE_NOTIFY_INC_EPOCH (Linux 6.16+): every cached dentry, negative ones too, is looked up again. */
  incrementEpoch(cb: (error: Error | null) => void): void;
  /** Our patch: FUSE_NOTIFY_INC_EPOCH written before it returns (0 or -errno); it takes no lock, so an op may wait for it. */
  incrementEpochSync(): number;
  /** Our patch: entry and negative-entry timeouts (seconds) for later replies. */
  setEntryTimeouts(entry: number, negative: number): void;
  _fuseOptions(): string;
  /** The request being served: its caller's uid, gid and pid (fuse-napi's AsyncLocalStorage, set while an op runs). */
  context(): { uid: number; gid: number; pid: number } | null;
}
type FuseClass = new (mnt: string, ops: Record<string, unknown>, opts: Record<string, unknown>) => FuseInstance;

/** What our patch adds, in the module and in the native binding it builds from the patched source. */
const PATCHED_METHODS = ["invalidatePath", "incrementEpoch", "incrementEpochSync", "setEntryTimeouts"] as const;
const PATCHED_BINDING_EXPORTS = ["fuse_native_increment_epoch_sync", "fuse_native_set_entry_timeouts"] as const;

/** fuse-napi loads, but without `patches/fuse-napi@2.3.1.patch` (an npm install: only pnpm applies it). */
export class FuseNapiUnpatchedError extends Error {
  override readonly name = "FuseNapiUnpatchedError";
}

/**
 * Loads the binding; throws when it is not built, and FuseNapiUnpatchedError
 * when it is the registry's code without our patch (then boot falls back to
 * fuse-native). The driver calls the patch's methods and relies on its C
 * side (use_ino, hard_remove, the main loop), so an unpatched build is never
 * mounted: it would mount, then fail on the first sync apply.
 */
export function loadFuseNapi(): FuseClass {
  const require = createRequire(import.meta.url);
  const Fuse = require("fuse-napi") as FuseClass;
  const missing: string[] = PATCHED_METHODS.filter(
    (name) => typeof (Fuse.prototype as unknown as Record<string, unknown>)[name] !== "function",
  );
  if (missing.length === 0) {
    // The patched index.js with a binding built before the patch (a stale build/) still lacks the C side.
    const root = dirname(require.resolve("fuse-napi"));
    const { loadNativeBinding } = require(join(root, "lib", "native-binding.js")) as {
      loadNativeBinding(root: string): Record<string, unknown>;
    };
    const binding = loadNativeBinding(root);
    missing.push(...PATCHED_BINDING_EXPORTS.filter((name) => typeof binding[name] !== "function"));
  }
  if (missing.length > 0) {
    throw new FuseNapiUnpatchedError(
      `fuse-napi is installed without computerd's patch (patches/fuse-napi@2.3.1.patch, applied by pnpm only; missing ${missing.join(", ")})`,
    );
  }
  return Fuse;
}

export class FuseNapiDriver extends MountFsDriver implements MountDriver {
  readonly mode = "fuse" as const;
  #fuse: FuseInstance | undefined;
  /** The kernel takes FUSE_NOTIFY_INC_EPOCH (probed once at mount). */
  #epoch = false;

  async mount(): Promise<void> {
    await this.clearStaleMount();
    const Fuse = loadFuseNapi();
    const o = this.options;
    // Our patch reads the loop from the environment when the mount comes up.
    process.env.COMPUTERD_FUSE_LOOP = o.loop;
    let instance: FuseInstance | undefined;
    const caller = (): Caller | undefined => {
      const context = instance?.context();
      return context ? { uid: context.uid, gid: context.gid, pid: context.pid } : undefined;
    };
    const fuse = new Fuse(this.mountPoint, this.#ops(caller), {
      mkdir: true,
      // A big commit may take longer than any fixed limit on a slow machine; the kernel has its own.
      timeout: false,
      autoUnmount: true,
      fsname: "computerd",
      subtype: "computerd",
      maxRead: o.maxRead,
      // kernel_cache is answered per open instead (#ops): a file with several names drops its pages.
      ...(o.pageCache === "auto" ? { autoCache: true } : {}),
      ...(o.attrTimeout !== undefined ? { attrTimeout: o.attrTimeout } : {}),
      ...(o.entryTimeout !== undefined ? { entryTimeout: o.entryTimeout } : {}),
      ...(o.acAttrTimeout !== undefined && o.pageCache === "auto" ? { acAttrTimeout: o.acAttrTimeout } : {}),
    });
    instance = fuse;
    const extra = [
      ...(o.negativeTimeout !== undefined ? [`negative_timeout=${o.negativeTimeout}`] : []),
      // Every uid may use the mount, and the kernel checks permissions from our modes and owners. Passed
      // whole: fuse-napi's allowOther insists on /etc/fuse.conf's user_allow_other, which root does not need.
      ...(process.getuid?.() === 0 ? ["allow_other", "default_permissions"] : []),
      ...o.extra,
    ];
    if (extra.length > 0) {
      // fuse-napi validates the options it knows; the rest are passed to libfuse as they are.
      const own = fuse._fuseOptions.bind(fuse);
      fuse._fuseOptions = () => `${own()},${extra.join(",")}`;
    }
    await withTimeout(
      new Promise<void>((resolve, reject) => fuse.mount((error) => (error ? reject(error) : resolve()))),
      MOUNT_TIMEOUT_MS,
      `FUSE mount of ${this.mountPoint} did not come up within ${MOUNT_TIMEOUT_MS} ms`,
    );
    this.#fuse = fuse;
    this.trace?.install();
    // Names may stay cached longer only where a push can drop them all at once.
    this.#epoch = await new Promise<boolean>((resolve) => fuse.incrementEpoch((error) => resolve(error === null)));
    if (this.#epoch && o.epochTimeouts !== undefined) {
      fuse.setEntryTimeouts(o.epochTimeouts.entry, o.epochTimeouts.negative);
    }
    this.log.info(
      `mounted ${this.mountPoint} (fuse-napi, ${fuse._fuseOptions()}, max_write=${o.maxWrite}, loop=${o.loop}, writeback_cache=${o.writebackCache ? "on" : "off"}, epoch=${this.#epoch ? "on" : "off"}${this.#epoch && o.epochTimeouts ? `, entry_timeout=${o.epochTimeouts.entry}, negative_timeout=${o.epochTimeouts.negative}` : ""})`,
    );
  }

  async unmount(): Promise<void> {
    const fuse = this.#fuse;
    this.#fuse = undefined;
    if (fuse === undefined) return;
    this.trace?.report();
    // fuse-napi stops its request threads and detaches (umount2 MNT_DETACH as root) off this loop.
    await commitAndUnmount(this.fs, fuse, this.mountPoint, this.log, MOUNT_TIMEOUT_MS);
  }

  /**
   * With the writeback cache, bytes written through a handle that is still
   * open may sit in the kernel's page cache: `sync -f` (syncfs, in a child
   * process so this loop keeps serving the writes it causes) pushes them to
   * us before the commit.
   */
  async beforeFetch(): Promise<void> {
    if (this.options.writebackCache && this.fs.hasOpenFiles) {
      await run("sync", ["-f", this.mountPoint], { timeout: 30_000 }).catch((error) =>
        this.log.error("sync -f before a fetch failed", error),
      );
    }
    this.fs.commitAll();
  }

  /**
   * A push changed these store paths behind the kernel's back: drop its
   * cached attributes and pages of each (with kernel_cache nothing else
   * would), before the push answers, so the next command sees the new bytes.
   */
  async afterApply(paths: readonly string[]): Promise<void> {
    const held = this.fs.invalidate();
    const fuse = this.#fuse;
    if (fuse === undefined) return;
    if (this.#epoch) {
      // Names the push added, removed or moved: every cached name (negative ones too) is looked up again.
      await new Promise<void>((resolve) =>
        fuse.incrementEpoch((error) => {
          if (error) this.log.error("FUSE_NOTIFY_INC_EPOCH failed", error);
          resolve();
        }),
      );
    }
    // An inode no process holds is dropped at its next lookup (the epoch); one held open keeps the kernel's
    // size and mtime, so the new ones go in through the mount (answered as no-ops: the store has them).
    if (this.options.writebackCache) await teachKernel(held, this.log);
    const mounted = paths.map((path) => this.fs.fusePath(path)).filter((path) => path !== undefined);
    // fuse-napi queues at most 1,024 notifications per mount.
    for (let at = 0; at < mounted.length; at += INVALIDATE_BATCH) {
      await Promise.all(
        mounted.slice(at, at + INVALIDATE_BATCH).map(
          (path) =>
            new Promise<void>((resolve) =>
              fuse.invalidatePath(path, (error) => {
                if (error) this.log.error(`invalidating ${path} failed`, error);
                resolve();
              }),
            ),
        ),
      );
    }
  }

  beforeApply(): void {
    this.fs.prepareApply();
  }

  stats(): Record<string, number> {
    return this.fs.stats();
  }

  /** fuse-napi's callback table over MountFs; every op answers an errno on failure. */
  #ops(caller: () => Caller | undefined): Record<string, Op> {
    const fs = this.fs;
    const op = opAdapter(this.trace);
    const options = this.options;
    const readdirPlus = op("readdir", (dir: string) => fs.readdirPlus(dir));
    const keepPages = options.pageCache === "kernel";
    const table: Record<string, Op> = {
      ...sharedOps(fs, op),
      // What a request creates is its caller's; a chown follows chown(2)'s rules for that caller.
      mkdir: op("mkdir", (path: string, mode: number) => fs.mkdir(path, mode, caller())),
      symlink: op("symlink", (target: string, path: string) => fs.symlink(target, path, caller())),
      mknod: op("mknod", async (path: string, mode: number, rdev: number | bigint) => {
        await fs.mknod(path, mode, caller(), Number(rdev));
      }),
      chown: op("chown", (path: string, uid: number, gid: number) => fs.chown(path, idOf(uid), idOf(gid), caller())),
      // Pages stay cached across opens (kernel_cache), except for a file with several names: each name is
      // its own kernel inode, whose pages a write through another name leaves stale.
      create: op("create", async (path: string, mode: number) => ({
        fd: await fs.create(path, mode, caller()),
        keepCache: keepPages,
      })),
      open: op("open", (path: string, flags: number) => {
        const fd = fs.open(path, flags);
        return { fd, keepCache: keepPages && !fs.isShared(fd) };
      }),
      initWithConfig: (connection: unknown, cb: unknown) => {
        const conn = connection as Connection;
        let want = conn.want;
        if (options.writebackCache && (conn.capable & FUSE_CAP_WRITEBACK_CACHE) !== 0) want |= FUSE_CAP_WRITEBACK_CACHE;
        // The kernel would otherwise drop a file's pages whenever our mtime (ms) differs from its own after a write.
        if (options.pageCache === "kernel") want &= ~FUSE_CAP_AUTO_INVAL_DATA;
        (cb as Callback)(0, { maxWrite: Math.min(conn.maxWrite, options.maxWrite), want });
      },
      getattr: op("getattr", (path: string) => withTimespecs(fs.getattr(path))),
      fgetattr: op("fgetattr", (path: string | null, fd: number) =>
        withTimespecs(fd > 0 ? fs.fgetattr(fd) : fs.getattr(path ?? "/")),
      ),
      // Names with attributes: the kernel's readdirplus caches the entries (our patch passes FUSE_FILL_DIR_PLUS).
      readdir: (path: unknown, cb: unknown) =>
        readdirPlus(path, (errno: number, listing?: unknown) => {
          if (errno !== 0) return (cb as Callback)(errno);
          const { names, stats } = listing as { names: string[]; stats: FuseStat[] };
          (cb as Callback)(0, names, stats.map(withTimespecs));
        }),
      utimensWithHandle: op("utimens", (path: string | null, fd: number, atime: Timespec, mtime: Timespec) => {
        const times = { atime: timeRequest(atime), mtime: timeRequest(mtime) };
        if (path === null) fs.futimens(fd, times);
        else fs.utimens(path, times);
      }),
      fallocate: op("fallocate", (_path: string | null, fd: number, mode: number, offset: number, length: number) =>
        fallocate(fs, fd, mode, Number(offset), Number(length)),
      ),
      // No flush: libfuse 3 answers ENOSYS and the kernel stops sending it, one round trip less per close.
      // cp and copyFile use copy_file_range: whole chunks are shared by hash, no bytes cross the kernel.
      copyFileRange: op(
        "copyFileRange",
        (
          _src: string | null,
          srcFd: number,
          srcOffset: number,
          _dest: string | null,
          destFd: number,
          destOffset: number,
          length: number,
          flags: number,
        ) => {
          if (flags !== 0) throw new ErrnoError(EINVAL, "copy_file_range flags");
          return fs.copyRange(srcFd, Number(srcOffset), destFd, Number(destOffset), Number(length));
        },
        true,
      ),
    };
    for (const name of SHARED_CHANGE_OPS) table[name] = this.#dropNamesAfterSharedChange(table[name] as Op);
    return table;
  }

  /**
   * A change to a file with several names answers only once the kernel has
   * dropped every cached name (the epoch): the next use of another name then
   * looks it up again and gets fresh attributes, or a fresh inode. The epoch
   * takes no lock, so it is sent from inside the op, synchronously (on the
   * main loop nothing may answer later).
   */
  #dropNamesAfterSharedChange(inner: Op): Op {
    return (...args: unknown[]): void => {
      const cb = args.pop() as Callback;
      const before = this.fs.sharedChanges;
      inner(...args, (...reply: unknown[]) => {
        const fuse = this.#fuse;
        if (this.fs.sharedChanges !== before && this.#epoch && fuse !== undefined) {
          const result = fuse.incrementEpochSync();
          if (result !== 0) this.log.error(`FUSE_NOTIFY_INC_EPOCH failed: ${result}`);
        }
        cb(...(reply as [number]));
      });
    };
  }
}

/**
 * `COMPUTERD_FUSE_DRIVER=kernel`: computerd's own FUSE layer. The kernel's
 * protocol is spoken in TypeScript (kernel/); a small addon of ours
 * (native/fuse_dev.c) opens /dev/fuse, calls mount(2) with the fd and polls
 * it on this loop, so a request costs one read() and one write() with no
 * thread hand-off and no libfuse in between. Node ids are dofs inode
 * numbers (kernel/nodes.ts); the storage side is MountFs, path-based, so
 * each op resolves its node's path from the names the kernel was given.
 *
 * As root it calls mount(2) itself; any other user mounts through
 * fusermount3, which sends back the /dev/fuse fd (kernel/fusermount.ts). A push invalidates what the kernel cached:
 * INVAL_ENTRY for each changed name the kernel may hold (negative ones
 * included, at the first unknown component) and INVAL_INODE for each
 * changed node, written from a worker thread (they take kernel locks a
 * pending request may hold, and this loop must keep answering meanwhile).
 *
 * No-open (COMPUTERD_FUSE_NO_OPEN, on by default): the first OPEN and
 * OPENDIR answer ENOSYS and the kernel stops sending them and their
 * RELEASEs; files opened by name are then served by inode (MountFs, "Files
 * by inode"), kept past their last name until the kernel forgets the node,
 * and listings page by name hash (kernel/listing.ts).
 *
 * relatime (kernel/relatime.ts): FUSE inodes are S_NOATIME, so after a
 * change that makes a file's or listing's atime due, what the kernel keeps
 * of it is dropped and the next read reaches MountFs, which moves the atime.
 *
 * The writeback cache (COMPUTERD_FUSE_WRITEBACK_CACHE): the kernel keeps
 * written pages and sends them later, so pages a write filled stay cached
 * for the reads after it. A pull, a push and the unmount first syncfs the
 * mount (the pages come in as WRITEs). The kernel never takes a size or
 * time from us for a regular file it caches that way, so after a push that
 * changed one it holds: a file MountFs had loaded (a process may have it
 * open) is taught its new size and mtime through the mount
 * (teach-kernel.ts; the SETATTRs change nothing, context.settling), and
 * any other gets a fresh node id (kernel/nodes.ts, rekey).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, constants, mkdirSync } from "node:fs";
import { join } from "node:path";
import { withTimeout } from "@cloudflare/computer-rpc";
import { lookupInode } from "@cloudflare/dofs/inode";
import type { MountDriver } from "./driver.js";
import { registerAttrOps } from "./kernel/attr-ops.js";
import { BusyPoll } from "./kernel/busy-poll.js";
import type { KernelContext } from "./kernel/context.js";
import { registerDirOps } from "./kernel/dir-ops.js";
import { registerEntryOps } from "./kernel/entry-ops.js";
import { registerFileOps } from "./kernel/file-ops.js";
import { type FuseDev, loadFuseDev } from "./kernel/fuse-dev.js";
import { mountWithFusermount, userAllowOther } from "./kernel/fusermount.js";
import { initHandler, type Negotiated } from "./kernel/init.js";
import { NodeTable } from "./kernel/nodes.js";
import { Init, Notify, Op, ROOT_ID, timeout, writeU64 } from "./kernel/protocol.js";
import { RelatimePages } from "./kernel/relatime.js";
import { Session } from "./kernel/session.js";
import { ENTRIES_PER_QUEUE, enableUring, UringTransport } from "./kernel/uring.js";
import { MountFsDriver } from "./mount-fs-driver.js";
import { lazyUnmount } from "./mount-point.js";
import { teachKernel } from "./teach-kernel.js";

const MOUNT_TIMEOUT_MS = 5_000;
/** A syncfs that takes longer is logged and not waited for (a stuck writer must not stop a pull forever). */
const WRITE_BACK_TIMEOUT_MS = 30_000;
const MS_NOSUID = 2;
const MS_NODEV = 4;
const MNT_DETACH = 2;
/**
 * Seconds the kernel keeps names, absent names and attributes. Long: only
 * the mount itself and pushes change the store, and a push invalidates what
 * it changed (afterApply).
 */
export const KERNEL_CACHE_SECONDS = 3600;
const NOTIFY_BATCH = 256;

export class KernelDriver extends MountFsDriver implements MountDriver {
  readonly mode = "fuse" as const;
  #dev: FuseDev | undefined;
  #session: Session | undefined;
  #nodes: NodeTable | undefined;
  #context: KernelContext | undefined;
  #busyPoll: BusyPoll | undefined;
  #uring: UringTransport | undefined;
  #watchdog: ChildProcess | undefined;
  #privileged = true;

  async mount(): Promise<void> {
    await this.clearStaleMount();
    const dev = loadFuseDev();
    const root = lookupInode(this.db, this.fs.vfsPath("/"));
    if (root === undefined || root.type !== "dir")
      throw new Error(`${this.mountPoint} is not a directory in the store`);
    mkdirSync(this.mountPoint, { recursive: true });
    const maxWrite = this.options.maxWrite;
    const privileged = process.geteuid?.() === 0;
    // Every uid may use the mount (allow_other: root may always, others where fuse.conf lets them),
    // and the kernel checks permissions from our modes and owners (default_permissions).
    const access = privileged || userAllowOther() ? "allow_other,default_permissions" : "default_permissions";
    // Before the connection opens: the kernel offers io_uring at INIT only while the module parameter is on.
    const uringOff = this.options.uring ? enableUring(this.log) : "COMPUTERD_FUSE_URING=off";
    // fusermount3 mounts before we answer anything: the kernel's INIT waits in the queue until the session reads.
    const fd = privileged
      ? dev.open()
      : await mountWithFusermount(dev, this.mountPoint, `rootmode=40000,${access},fsname=computerd,subtype=computerd`);
    this.#privileged = privileged;
    const busyPoll = new BusyPoll(this.options.busyPoll, this.log);
    this.#busyPoll = busyPoll;
    const session = new Session(dev, fd, maxWrite, this.log, this.trace, busyPoll);
    // A node the kernel forgot: a file kept for it past its last name goes (no-open), and the kernel keeps no page of it.
    const nodes = new NodeTable(root.inode, (inode) => {
      this.fs.forgetInode(inode);
      relatime.forgotten(inode);
    });
    const relatime = new RelatimePages(session, nodes);
    this.fs.watchTimes((inode, contents) => relatime.changed(inode, contents));
    session.onReplied = relatime.flush;
    const context: KernelContext = {
      fs: this.fs,
      mountPoint: this.mountPoint,
      nodes,
      session,
      entryTimeout: timeout(KERNEL_CACHE_SECONDS),
      negativeTimeout: timeout(KERNEL_CACHE_SECONDS),
      attrTimeout: timeout(KERNEL_CACHE_SECONDS),
      handles: new Map(),
      noOpen: false,
      noOpendir: false,
      writeback: false,
      settling: new Map(),
      relatime,
    };
    const initOptions = { maxWrite, writebackCache: this.options.writebackCache, noOpen: this.options.noOpen };
    let negotiated: (value: Negotiated) => void = () => {};
    const initialized = new Promise<Negotiated>((resolve) => (negotiated = resolve));
    session.on(
      Op.INIT,
      "init",
      initHandler({ ...initOptions, uring: uringOff === undefined }, (value) => {
        // Before any other request: OPEN and OPENDIR read these.
        context.noOpen = value.noOpen;
        context.noOpendir = value.noOpendir;
        context.writeback = (value.flags & Init.WRITEBACK_CACHE) !== 0;
        relatime.enabled = !context.writeback;
        if (value.noOpen) {
          this.fs.serveByInode({
            pathOf: (inode) => nodes.path(nodes.nodeOf(inode)),
            holds: (inode) => nodes.holds(inode),
          });
        }
        negotiated(value);
      }),
    );
    session.on(Op.INTERRUPT, "interrupt", () => undefined); // the op answers in its own time
    session.on(Op.DESTROY, "destroy", () => 0);
    registerAttrOps(session, context);
    registerEntryOps(session, context);
    registerFileOps(session, context);
    registerDirOps(session, context);
    if (privileged) {
      const uid = process.getuid?.() ?? 0;
      const gid = process.getgid?.() ?? 0;
      try {
        dev.mount(
          "computerd",
          this.mountPoint,
          "fuse.computerd",
          MS_NOSUID | MS_NODEV,
          `fd=${fd},rootmode=40000,user_id=${uid},group_id=${gid},${access}`,
        );
      } catch (error) {
        closeSync(fd);
        busyPoll.close();
        throw new Error(`mount(2) of ${this.mountPoint} failed: ${(error as Error).message}`);
      }
    }
    session.start();
    this.#dev = dev;
    this.#session = session;
    this.#nodes = nodes;
    this.#context = context;
    this.#watchdog = startWatchdog(this.mountPoint, privileged);
    let result: Negotiated;
    try {
      result = await withTimeout(
        initialized,
        MOUNT_TIMEOUT_MS,
        `FUSE INIT on ${this.mountPoint} did not come within ${MOUNT_TIMEOUT_MS} ms`,
      );
    } catch (error) {
      // Never leave a mount behind that nobody answers.
      await this.unmount();
      throw error;
    }
    this.trace?.install();
    const transport = this.#openUring(result, uringOff);
    this.log.info(
      `mounted ${this.mountPoint} (kernel, protocol 7.${Math.min(result.kernelMinor, 43)} of kernel 7.${result.kernelMinor}, max_write=${result.maxWrite}, flags=0x${result.flags.toString(16)}, cache=${KERNEL_CACHE_SECONDS}s, writeback cache ${context.writeback ? "on" : "off"}, no-open ${result.noOpen ? "on" : "off"}, no-opendir ${result.noOpendir ? "on" : "off"}, ${transport}, busy polling ${busyPoll.mode})`,
    );
  }

  /**
   * Moves the session's requests to FUSE over io_uring when INIT took it
   * (the kernel accepts entries only after the INIT reply, which is out by
   * now); otherwise one line says why they stay on /dev/fuse reads. The
   * transport, for the mount's log line.
   */
  #openUring(result: Negotiated, off: string | undefined): string {
    const session = this.#session as Session;
    let reason = off ?? "the kernel did not offer it at INIT";
    if (result.uring) {
      const opened = UringTransport.open(this.#dev as FuseDev, session, result.maxWrite, this.log);
      if (typeof opened !== "string") {
        this.#uring = opened;
        return `io_uring ${opened.queues} queues x ${ENTRIES_PER_QUEUE} entries`;
      }
      reason = opened;
    }
    this.log.info(`FUSE over io_uring off: ${reason}; requests come from /dev/fuse reads`);
    return "/dev/fuse reads";
  }

  async unmount(): Promise<void> {
    const dev = this.#dev;
    const session = this.#session;
    this.#dev = undefined;
    this.#session = undefined;
    if (dev === undefined || session === undefined) return;
    this.trace?.report();
    this.#watchdog?.kill("SIGKILL");
    this.#watchdog = undefined;
    // Still answering: the kernel's dirty pages come in before the last commit.
    await this.#writeBack(dev);
    try {
      this.fs.commitAll();
    } catch (error) {
      this.log.error("commit before unmount failed", error);
    }
    // Detached at once; the session keeps answering whoever still uses the mount, briefly.
    // Without root only fusermount3 may detach what it mounted.
    if (!this.#privileged) {
      await lazyUnmount(this.mountPoint);
    } else {
      const result = await new Promise<number>((resolve) => dev.unmount(this.mountPoint, MNT_DETACH, resolve));
      if (result !== 0) {
        this.log.error(`umount2 of ${this.mountPoint} failed: errno ${-result}; detaching it lazily`);
        await lazyUnmount(this.mountPoint);
      }
    }
    await Promise.race([session.ended, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    // Closing the last fd ends the connection for any lazy user left.
    session.stop();
    closeSync(session.fd);
    // After the connection is gone: the kernel ended every entry, none is still in use.
    this.#uring?.close();
    this.#uring = undefined;
    this.#busyPoll?.close();
  }

  async beforeFetch(): Promise<void> {
    await this.#writeBack();
    this.fs.commitAll();
  }

  /**
   * With the writeback cache, what processes wrote may still be the
   * kernel's dirty pages (and times): syncfs on a worker thread makes the
   * kernel send them, which this loop answers meanwhile. Nothing to do
   * without it: every write reached the daemon before it returned.
   */
  async #writeBack(dev = this.#dev): Promise<void> {
    if (dev === undefined || this.#context?.writeback !== true) return;
    const result = await withTimeout(
      new Promise<number>((resolve) => dev.syncfs(this.mountPoint, resolve)),
      WRITE_BACK_TIMEOUT_MS,
      `syncfs of ${this.mountPoint} did not finish within ${WRITE_BACK_TIMEOUT_MS} ms`,
    ).catch((error: Error) => {
      this.log.error(error.message);
      return 0;
    });
    if (result !== 0) this.log.error(`syncfs of ${this.mountPoint} failed: errno ${-result}`);
  }

  /**
   * Before a push applies: everything commits, and each file the kernel
   * holds at a path the push changes keeps its stored chunks (with no-open
   * a process may have it open, and read it after the push deletes it).
   */
  async beforeApply(paths: readonly string[] = []): Promise<void> {
    // Pages the kernel still holds would be written back over what the push brings.
    await this.#writeBack();
    this.fs.prepareApply();
    const nodes = this.#nodes;
    if (nodes === undefined || this.#context?.noOpen !== true) return;
    for (const path of paths) {
      const node = this.#heldNode(path);
      if (node !== undefined) this.fs.keepForApply(nodes.inodeOf(node));
    }
  }

  /** The node the kernel holds at a store path, if it holds one (every name on the way is known). */
  #heldNode(path: string): number | undefined {
    const nodes = this.#nodes;
    const fusePath = this.fs.fusePath(path);
    if (nodes === undefined || fusePath === undefined) return undefined;
    let node: number | undefined = ROOT_ID;
    for (const name of fusePath.split("/")) {
      if (name !== "") node = nodes.child(node, name);
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** A push changed these store paths: drop what the kernel cached of each before the push answers. */
  async afterApply(paths: readonly string[]): Promise<void> {
    const changed = this.fs.invalidate();
    const session = this.#session;
    const nodes = this.#nodes;
    const context = this.#context;
    if (session === undefined || nodes === undefined || context === undefined) return;
    // With the writeback cache: the files MountFs had loaded (a process may have them open) are taught their
    // new size and mtime through the mount, after the notifications; any other file the kernel holds gets a
    // fresh node id (below), so its next lookup makes a new kernel inode.
    const teach = context.writeback
      ? changed.flatMap((file) => {
          const at = this.fs.fusePath(file.path);
          return at === undefined ? [] : [{ ...file, path: join(this.mountPoint, at), fusePath: at }];
        })
      : [];
    const taught = new Set(teach.map((file) => file.fusePath));
    const notes: Promise<void>[] = [];
    const send = (code: number, body: Buffer, length: number): void => {
      notes.push(
        session.notify(code, body, length).then((result) => {
          // ENOENT: the kernel had nothing cached there.
          if (result !== 0 && result !== -2) this.log.error(`FUSE notification ${code} failed: errno ${-result}`);
        }),
      );
    };
    // With no-opendir the kernel may keep a directory's listing (CACHE_DIR is implied): a directory whose
    // entry changed drops it too (its pages, INVAL_INODE of the whole range).
    const listed = this.#context?.noOpendir === true ? new Set<number>() : undefined;
    for (const path of paths) {
      const fusePath = this.fs.fusePath(path);
      if (fusePath === undefined) continue;
      const names = fusePath.split("/").filter((part) => part !== "");
      let node = ROOT_ID;
      for (const [at, name] of names.entries()) {
        const child = nodes.child(node, name);
        const length = Buffer.byteLength(name);
        const entry = Buffer.alloc(16 + length + 1);
        writeU64(entry, 0, node);
        entry.writeUInt32LE(length, 8);
        entry.write(name, 16, "utf8");
        if (child === undefined) {
          // Nothing is cached below here; the name itself may be cached as absent.
          send(Notify.INVAL_ENTRY, entry, entry.length);
          listed?.add(node);
          break;
        }
        if (at === names.length - 1) {
          if (this.fs.isOrphan(nodes.inodeOf(child))) {
            // A file the push deleted that a process may hold open (no-open): the kernel learns its link count
            // is 0, so it FORGETs the node at its last close and MountFs lets the file go.
            const deleted = Buffer.alloc(24 + length + 1);
            writeU64(deleted, 0, node);
            writeU64(deleted, 8, child);
            deleted.writeUInt32LE(length, 16);
            deleted.write(name, 24, "utf8");
            send(Notify.DELETE, deleted, deleted.length);
          } else {
            // With the writeback cache the kernel keeps its own size and times of a file it holds: the
            // next lookup of the name gets a fresh node id, so a fresh kernel inode with the pushed ones.
            const file = nodes.inodeOf(child);
            if (context.writeback && !taught.has(fusePath) && this.#isRegularFile(file)) nodes.rekey(file);
            send(Notify.INVAL_ENTRY, entry, entry.length);
          }
          listed?.add(node);
          const inode = Buffer.alloc(24);
          writeU64(inode, 0, child);
          send(Notify.INVAL_INODE, inode, inode.length);
        }
        node = child;
      }
      if (fusePath === "/") {
        const inode = Buffer.alloc(24);
        writeU64(inode, 0, ROOT_ID);
        send(Notify.INVAL_INODE, inode, inode.length);
      }
      if (notes.length >= NOTIFY_BATCH) await Promise.all(notes.splice(0));
    }
    for (const dir of listed ?? []) {
      const inode = Buffer.alloc(24);
      writeU64(inode, 0, dir);
      send(Notify.INVAL_INODE, inode, inode.length);
      if (notes.length >= NOTIFY_BATCH) await Promise.all(notes.splice(0));
    }
    await Promise.all(notes);
    if (teach.length === 0) return;
    const settling = context.settling;
    await teachKernel(teach, this.log, {
      before: (file) => settling.set(file.fusePath, file),
      after: (file) => settling.delete(file.fusePath),
    });
  }

  #isRegularFile(inode: number): boolean {
    const stat = this.fs.inodeStat(inode);
    return stat !== undefined && (stat.mode & constants.S_IFMT) === constants.S_IFREG;
  }

  stats(): Record<string, number> {
    return {
      ...this.fs.stats(),
      kernel_nodes: this.#nodes?.size ?? 0,
      kernel_requests: this.#session?.requests ?? 0,
      kernel_uring_entries: this.#uring?.entries ?? 0,
      kernel_uring_requests: this.#session?.uringRequests ?? 0,
      ...this.#busyPoll?.stats(),
    };
  }
}

/**
 * A mount must not outlive a daemon killed with SIGKILL (nothing of ours
 * runs then): a tiny shell holds a pipe from us and, when it reads EOF,
 * detaches the mount. A clean unmount kills it first.
 */
function startWatchdog(mountPoint: string, privileged: boolean): ChildProcess {
  const detach = privileged ? 'exec umount -l -- "$1"' : 'exec fusermount3 -uz -- "$1"';
  const child = spawn("/bin/sh", ["-c", `read -r _; ${detach}`, "computerd-watchdog", mountPoint], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
    cwd: "/",
  });
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

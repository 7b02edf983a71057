/**
 * What the rooms of MountFs share besides its state: the attribute shapes a
 * driver reads, the limits, and small pure helpers.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { MAX_NAME_BYTES } from "@cloudflare/dofs";
import type { InodeAttr } from "@cloudflare/dofs/inode";
import type { Nanos } from "../inode-times.js";
import type { OpenFile } from "../open-file.js";

/** libfuse (2, without hard_remove) renames a file unlinked while open to this prefix, then unlinks it on release. */
export const HIDDEN_PREFIX = ".fuse_hidden";
export const TYPE_BITS = { file: constants.S_IFREG, dir: constants.S_IFDIR, symlink: constants.S_IFLNK };
export const O_ACCMODE = 3;
export const O_TRUNC = constants.O_TRUNC;
export const S_IFMT = 0o170000;
export const S_ISGID = 0o2000;

export interface FuseStat {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  nlink: number;
  ino: number;
  blksize: number;
  blocks: number;
  /** Times in whole ms (what fuse-native takes), with the nanoseconds within their second beside them. */
  atime: number;
  mtime: number;
  ctime: number;
  atimeNsec: number;
  mtimeNsec: number;
  ctimeNsec: number;
  /** A device node's number (special-files.ts); absent for everything else. */
  rdev?: number;
}

/** A time a utimens asks for: a time, "now", or undefined to leave it alone (UTIME_OMIT). */
export type TimeRequest = Nanos | "now" | undefined;

export interface TimesRequest {
  atime?: TimeRequest;
  mtime?: TimeRequest;
}

/** A directory the path cache knows: its inode, and its mode (a setgid one hands its group to new entries). */
export interface DirRef {
  inode: number;
  mode: number;
}

export interface Handle {
  file: OpenFile;
}

/**
 * What a driver whose opens reach MountFs without a handle (the kernel
 * driver with no-open: reads and writes come with handle 0) tells it about
 * the inodes the kernel holds (`serveByInode`).
 */
export interface InodeAccess {
  /** The FUSE path of an inode the kernel holds; undefined when it has no name left. */
  pathOf(inode: number): string | undefined;
  /** The kernel holds the inode's node, so a process may have it open. */
  holds(inode: number): boolean;
}

export interface MountFsOptions {
  now?: () => number;
  /** Idle chunk buffers kept for reuse (512 KiB each; 160 = 80 MiB covers a 64 MiB file rewritten in place). */
  poolKeep?: number;
  /** A caller's supplementary groups (a chgrp by a non-root owner); /proc by default. */
  groupsOf?: (pid: number) => readonly number[];
}

/**
 * A name the kernel cannot take in a dirent without failing the whole
 * listing (EIO). The store refuses such names, but one stored by an older
 * version is left out of listings rather than breaking its directory.
 */
export function fitsDirent(name: string): boolean {
  return name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name, "utf8") <= MAX_NAME_BYTES;
}

/** The last segment of a FUSE path is over NAME_MAX: a lookup answers ENAMETOOLONG, as on any Linux filesystem. */
export function isLongName(path: string): boolean {
  return !fitsDirent(path.slice(path.lastIndexOf("/") + 1));
}

/** Commit an open file early once this many bytes are dirty: memory stays bounded on huge copies. */
export const DIRTY_FLUSH_BYTES = 64 * 1024 * 1024;
/** Clean files kept after a read by inode (each may hold its last 512 KiB chunk read). */
export const BY_INODE_KEPT = 16;
/** Directory inodes remembered for lookups; past this the map starts over (a walk refills it). */
export const DIR_CACHE_LIMIT = 10_000;
/** Parked (closed, uncommitted) files are committed oldest first past this many bytes. */
export const PARKED_LIMIT = 128 * 1024 * 1024;

export const EMPTY = new Uint8Array(0);

/** The nanoseconds within a time's second. */
export function nsecOf(ns: Nanos): number {
  return Number(((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n);
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A listing's `.` or `..`: a directory's number and type, the rest zero (the kernel reads nothing else of a dot entry). */
export function dotStat(ino: number): FuseStat {
  return {
    mode: constants.S_IFDIR | 0o755,
    uid: 0,
    gid: 0,
    size: 0,
    nlink: 2,
    ino,
    blksize: 4096,
    blocks: 0,
    atime: 0,
    mtime: 0,
    ctime: 0,
    atimeNsec: 0,
    mtimeNsec: 0,
    ctimeNsec: 0,
  };
}

export function detachedAttr(file: OpenFile): InodeAttr {
  return {
    inode: file.inode,
    type: "file",
    mode: file.mode,
    mtime: file.mtime,
    size: file.size,
    nlink: 0,
    linkTarget: null,
  };
}

/**
 * How long a path below the mount point may be (UTF-8 bytes, a NUL
 * counted). Linux limits only the path one system call is given (PATH_MAX,
 * 4096); a process that changes into a directory can go deeper, so the
 * store is not held to PATH_MAX: 16 times it. The Durable Object's API keeps
 * PATH_MAX for the whole path, and sync skips (and reports) an entry longer.
 */
export const BELOW_MOUNT_MAX_PATH_BYTES = 16 * 4096;

/** What mknod keeps in memory (special-files.ts); a regular file goes to the store. */
export const SPECIAL_TYPES = new Set([constants.S_IFIFO, constants.S_IFSOCK, constants.S_IFCHR, constants.S_IFBLK]);

/**
 * Who owns each inode, in the daemon's memory: dofs has no column for it
 * and sync carries none (the Durable Object, like the original's, stores
 * mode and mtime only; docs/computerd.md, "POSIX: ownership"). An inode not
 * held here belongs to the default owner, the daemon's own uid and gid:
 * everything the Durable Object pushes, and everything root makes, costs
 * nothing. Entries are never evicted (an owner forgotten would hand a
 * user's files to root); they go when the inode does. Owners are interned,
 * so a tree made by one user costs one map entry per inode.
 */
import { readFileSync } from "node:fs";

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/** Who made a request: the FUSE header's uid and gid, and the pid whose groups a chgrp checks. */
export interface Caller extends Owner {
  readonly pid: number;
}

/** uid_t/gid_t -1: "leave it as it is" (chown(2), and FUSE's setattr without FATTR_UID/GID). */
export const UNCHANGED = 0xffffffff;

export class InodeOwners {
  readonly #owners = new Map<number, Owner>();
  readonly #interned = new Map<string, Owner>();
  readonly default: Owner;

  constructor(defaultOwner: Owner) {
    this.default = this.#intern(defaultOwner.uid, defaultOwner.gid);
  }

  get(inode: number): Owner {
    return this.#owners.get(inode) ?? this.default;
  }

  set(inode: number, uid: number, gid: number): void {
    if (uid === this.default.uid && gid === this.default.gid) this.#owners.delete(inode);
    else this.#owners.set(inode, this.#intern(uid, gid));
  }

  /** The same inode under another number (an O_TMPFILE file given a store inode). */
  move(from: number, to: number): void {
    const owner = this.#owners.get(from);
    this.#owners.delete(from);
    if (owner !== undefined) this.#owners.set(to, owner);
  }

  /** The inode is gone. */
  forget(inode: number): void {
    this.#owners.delete(inode);
  }

  get size(): number {
    return this.#owners.size;
  }

  #intern(uid: number, gid: number): Owner {
    const key = `${uid}:${gid}`;
    let owner = this.#interned.get(key);
    if (owner === undefined) {
      owner = Object.freeze({ uid, gid });
      this.#interned.set(key, owner);
    }
    return owner;
  }
}

/**
 * chown(2)'s rule for a caller without CAP_CHOWN (everyone but uid 0 here,
 * which is what computerd's container grants): only the owner may, it may
 * not give the file away, and it may change the group only to one it is in.
 * The kernel checks the same with `default_permissions`; this keeps the
 * rule where a driver mounts without it.
 */
export function mayChown(
  owner: Owner,
  uid: number,
  gid: number,
  caller: Caller,
  groupsOf: (pid: number) => readonly number[],
): boolean {
  if (caller.uid === 0) return true;
  if (uid !== UNCHANGED && (caller.uid !== owner.uid || uid !== owner.uid)) return false;
  if (gid === UNCHANGED) return true;
  if (caller.uid !== owner.uid) return false;
  return gid === owner.gid || gid === caller.gid || groupsOf(caller.pid).includes(gid);
}

/** A process's supplementary groups (`Groups:` of /proc/<pid>/status); none when it cannot be read. */
export function procGroups(pid: number): readonly number[] {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const line = /^Groups:(.*)$/m.exec(status)?.[1] ?? "";
    return line
      .trim()
      .split(/\s+/)
      .filter((field) => field !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * FIFOs, Unix sockets and device nodes on the mount: names that live in
 * the daemon's memory only, beside the store's entries. A device node is
 * only a name, a mode and a number: the mount is nodev, so opening one is
 * EACCES, and what unpacks a root filesystem (tar, debootstrap) gets through. dofs knows files, directories
 * and symlinks (and so does the Durable Object, and the original's), so a
 * special file is local to the container and never synced
 * (docs/computerd.md, "POSIX: special files"). The kernel serves what
 * happens through them (a FIFO's pipe, a socket's connections) on its own
 * inode; the daemon only answers the name and its attributes.
 *
 * Inode numbers come from a range dofs never reaches (its inodes count up
 * from 1), so they double as kernel node ids.
 */

export interface SpecialNode {
  readonly ino: number;
  /** File type (S_IFIFO, S_IFSOCK, S_IFCHR or S_IFBLK) and permission bits. */
  mode: number;
  /** A device node's device number, as FUSE carries it (the kernel's encoding); 0 for the others. */
  readonly rdev: number;
  /** When it was made (ms): what its times fall back to (inode-times.ts). */
  readonly bornMs: number;
  /** The names it has (a hard link adds one): `parent inode` → names in it. */
  readonly names: { parent: number; name: string }[];
}

/** 2^48: far above any dofs inode, below 2^53 (node ids and ino stay exact numbers). */
export const SPECIAL_INO_BASE = 2 ** 48;
/** Nodes whose last name went, kept for the fstat of a FIFO or socket still open. */
const GONE_LIMIT = 1024;

export class SpecialFiles {
  readonly #byParent = new Map<number, Map<string, SpecialNode>>();
  readonly #byIno = new Map<number, SpecialNode>();
  /** Nameless nodes a process may still hold open (fstat answers them, link count 0), oldest first. */
  readonly #gone = new Map<number, SpecialNode>();
  /** Called when a nameless node is dropped for good: its owner and times may go. */
  readonly #forgotten: (ino: number) => void;
  #next = SPECIAL_INO_BASE + 1;

  constructor(forgotten: (ino: number) => void = () => {}) {
    this.#forgotten = forgotten;
  }

  /** None at all: every lookup can skip this table. */
  get empty(): boolean {
    return this.#byIno.size === 0;
  }

  /** An inode number of this range for something else in memory only (an O_TMPFILE file). */
  allocate(): number {
    return this.#next++;
  }

  static isSpecialIno(ino: number): boolean {
    return ino > SPECIAL_INO_BASE;
  }

  get(parent: number, name: string): SpecialNode | undefined {
    return this.#byParent.get(parent)?.get(name);
  }

  byIno(ino: number): SpecialNode | undefined {
    return this.#byIno.get(ino) ?? this.#gone.get(ino);
  }

  add(parent: number, name: string, mode: number, bornMs: number, rdev = 0): SpecialNode {
    const node: SpecialNode = { ino: this.#next++, mode, rdev, bornMs, names: [] };
    this.#byIno.set(node.ino, node);
    this.link(node, parent, name);
    return node;
  }

  link(node: SpecialNode, parent: number, name: string): void {
    let names = this.#byParent.get(parent);
    if (names === undefined) {
      names = new Map();
      this.#byParent.set(parent, names);
    }
    names.set(name, node);
    node.names.push({ parent, name });
  }

  /** Removes one name; answers the node and whether that was its last name. */
  remove(parent: number, name: string): { node: SpecialNode; last: boolean } | undefined {
    const node = this.#unname(parent, name);
    if (node === undefined) return undefined;
    const last = node.names.length === 0;
    if (last) {
      this.#byIno.delete(node.ino);
      this.#gone.set(node.ino, node);
      if (this.#gone.size > GONE_LIMIT) {
        const oldest = this.#gone.keys().next().value as number;
        this.#gone.delete(oldest);
        this.#forgotten(oldest);
      }
    }
    return { node, last };
  }

  move(parent: number, name: string, newParent: number, newName: string): void {
    const node = this.#unname(parent, name);
    if (node !== undefined) this.link(node, newParent, newName);
  }

  #unname(parent: number, name: string): SpecialNode | undefined {
    const names = this.#byParent.get(parent);
    const node = names?.get(name);
    if (node === undefined) return undefined;
    names?.delete(name);
    if (names?.size === 0) this.#byParent.delete(parent);
    const at = node.names.findIndex((n) => n.parent === parent && n.name === name);
    if (at !== -1) node.names.splice(at, 1);
    return node;
  }

  /** A directory's special entries, names in byte order. */
  list(parent: number): [string, SpecialNode][] {
    const names = this.#byParent.get(parent);
    if (names === undefined) return [];
    return [...names].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  hasEntries(parent: number): boolean {
    return this.#byParent.has(parent);
  }

  /** Every name, for a sweep after a push (`keep` false drops it). */
  prune(keep: (parent: number, name: string) => boolean): void {
    for (const [parent, names] of [...this.#byParent]) {
      for (const name of [...names.keys()]) if (!keep(parent, name)) this.remove(parent, name);
    }
  }

  get size(): number {
    return this.#byIno.size;
  }
}

/**
 * The kernel's node ids are dofs inode numbers (the mount's root inode is
 * node 1), so a hard link is one kernel inode and pages or attributes never
 * go stale across names. MountFs is path-based, so this table keeps the
 * names the kernel was given for each node (parent node + name) with the
 * kernel's lookup count: a node's path is one walk up its first name, and it
 * is dropped when FORGET brings the count to 0. dofs inode numbers are never
 * reused (AUTOINCREMENT), so (nodeid, generation 0) is unique for the
 * filesystem's life.
 *
 * Two exceptions give an inode another node id (an alias): an O_TMPFILE
 * node linked into the store, and a rekey. With the writeback cache the
 * kernel never takes a regular file's size or times from us again while it
 * holds the node, so a push that changes the file gives its inode a fresh
 * id (from FRESH_NODES up): the next lookup makes a new kernel inode, and
 * the older node, still held by whoever has it open, is served by inode
 * like a file unlinked while open. A lookup never answers an id the kernel
 * holds as stale.
 */
import { ROOT_ID } from "./protocol.js";

/** Where rekeyed node ids start: far above any dofs inode number, and exact as a JavaScript number. */
const FRESH_NODES = 2 ** 40;

interface Node {
  lookups: number;
  /** The names the kernel knows this node by; the first one names its path. */
  names: { parent: number; name: string }[];
}

export class NodeTable {
  readonly #nodes = new Map<number, Node>();
  /** parent node → name → child node: the positive entries the kernel may have cached. */
  readonly #children = new Map<number, Map<string, number>>();
  readonly #rootInode: number;
  /**
   * An O_TMPFILE node keeps its node id when linkat gives it a store inode:
   * inode → node and node → inode, until the kernel forgets the node.
   */
  readonly #nodeOfInode = new Map<number, number>();
  readonly #inodeOfNode = new Map<number, number>();
  readonly #forgotten: ((inode: number) => void) | undefined;
  /** inode → its older node ids the kernel still holds (rekey). */
  readonly #stale = new Map<number, Set<number>>();
  #nextFresh = FRESH_NODES;

  /** `forgotten`: called with a node's inode when FORGET brings its lookup count to 0. */
  constructor(rootInode: number, forgotten?: (inode: number) => void) {
    this.#rootInode = rootInode;
    this.#forgotten = forgotten;
  }

  get size(): number {
    return this.#nodes.size;
  }

  nodeOf(inode: number): number {
    if (inode === this.#rootInode) return ROOT_ID;
    return this.#nodeOfInode.size === 0 ? inode : (this.#nodeOfInode.get(inode) ?? inode);
  }

  inodeOf(nodeid: number): number {
    if (nodeid === ROOT_ID) return this.#rootInode;
    return this.#inodeOfNode.size === 0 ? nodeid : (this.#inodeOfNode.get(nodeid) ?? nodeid);
  }

  /** The kernel holds a node of `inode` (an entry reply it has not forgotten): a process may have it open. */
  holds(inode: number): boolean {
    return this.#nodes.has(this.nodeOf(inode)) || this.#stale.has(inode);
  }

  /**
   * From now on `inode` answers lookups under a fresh node id, if the
   * kernel holds its current one (else the next lookup makes a new kernel
   * inode anyway). The caller then invalidates the names it knows.
   */
  rekey(inode: number): void {
    const current = this.nodeOf(inode);
    if (inode === this.#rootInode || !this.#nodes.has(current)) return;
    let stale = this.#stale.get(inode);
    if (stale === undefined) {
      stale = new Set();
      this.#stale.set(inode, stale);
    }
    stale.add(current);
    this.alias(this.#nextFresh++, inode);
  }

  /** An entry reply for a node with no name (O_TMPFILE): one lookup more. */
  rememberNameless(nodeid: number): void {
    const node = this.#nodes.get(nodeid);
    if (node === undefined) this.#nodes.set(nodeid, { lookups: 1, names: [] });
    else node.lookups++;
  }

  /** Node `nodeid` (an O_TMPFILE one) is store inode `inode` from now on. */
  alias(nodeid: number, inode: number): void {
    this.#nodeOfInode.set(inode, nodeid);
    this.#inodeOfNode.set(nodeid, inode);
  }

  /** The FUSE path (`/a/b`) of a node; undefined once its last known name is gone (unlinked while in use). */
  path(nodeid: number): string | undefined {
    if (nodeid === ROOT_ID) return "/";
    const first = this.#nodes.get(nodeid)?.names[0];
    if (first === undefined) return undefined;
    const parent = this.path(first.parent);
    if (parent === undefined) return undefined;
    return parent === "/" ? `/${first.name}` : `${parent}/${first.name}`;
  }

  /** The node the kernel may have cached under `parent`/`name`. */
  child(parent: number, name: string): number | undefined {
    return this.#children.get(parent)?.get(name);
  }

  /** A successful entry reply (lookup, create, mkdir, link, symlink, a readdirplus entry): one lookup more. */
  remember(parent: number, name: string, nodeid: number): void {
    let node = this.#nodes.get(nodeid);
    if (node === undefined) {
      node = { lookups: 0, names: [] };
      this.#nodes.set(nodeid, node);
    }
    node.lookups++;
    let names = this.#children.get(parent);
    if (names === undefined) {
      names = new Map();
      this.#children.set(parent, names);
    }
    const previous = names.get(name);
    if (previous === nodeid) return;
    if (previous !== undefined) this.#dropName(previous, parent, name);
    names.set(name, nodeid);
    node.names.push({ parent, name });
  }

  forget(nodeid: number, count: number): void {
    const node = this.#nodes.get(nodeid);
    if (node === undefined) return;
    node.lookups -= count;
    if (node.lookups > 0) return;
    for (const { parent, name } of node.names) {
      const names = this.#children.get(parent);
      if (names?.get(name) === nodeid) names.delete(name);
      if (names?.size === 0) this.#children.delete(parent);
    }
    this.#nodes.delete(nodeid);
    const inode = this.inodeOf(nodeid);
    const stale = this.#stale.get(inode);
    if (stale?.delete(nodeid) === true && stale.size === 0) this.#stale.delete(inode);
    // An alias goes once its node is forgotten, unless stale nodes of the inode are still held: the
    // inode keeps the id then (the kernel has no inode for it, while it would find a stale one again).
    const alias = this.#nodeOfInode.get(inode);
    if (alias !== undefined && !this.#nodes.has(alias) && !this.#stale.has(inode)) {
      this.#nodeOfInode.delete(inode);
      this.#inodeOfNode.delete(alias);
    }
    if (this.#inodeOfNode.get(nodeid) === inode && alias !== nodeid) this.#inodeOfNode.delete(nodeid);
    if (!this.holds(inode)) this.#forgotten?.(inode);
  }

  /** `parent`/`name` is gone (unlink, rmdir, or the old name of a rename). */
  removed(parent: number, name: string): void {
    const names = this.#children.get(parent);
    const nodeid = names?.get(name);
    if (nodeid === undefined) return;
    names?.delete(name);
    this.#dropName(nodeid, parent, name);
  }

  renamed(parent: number, name: string, newParent: number, newName: string): void {
    const nodeid = this.child(parent, name);
    this.removed(newParent, newName);
    if (nodeid === undefined) return;
    this.#children.get(parent)?.delete(name);
    const node = this.#nodes.get(nodeid);
    if (node === undefined) return;
    const at = node.names.findIndex((n) => n.parent === parent && n.name === name);
    if (at !== -1) node.names.splice(at, 1);
    let names = this.#children.get(newParent);
    if (names === undefined) {
      names = new Map();
      this.#children.set(newParent, names);
    }
    names.set(newName, nodeid);
    // The new name first: it is the one that surely exists now.
    node.names.unshift({ parent: newParent, name: newName });
  }

  #dropName(nodeid: number, parent: number, name: string): void {
    const node = this.#nodes.get(nodeid);
    if (node === undefined) return;
    const at = node.names.findIndex((n) => n.parent === parent && n.name === name);
    if (at !== -1) node.names.splice(at, 1);
  }
}

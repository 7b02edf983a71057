/**
 * NodeTable against a reference model: random lookups, forgets, unlinks and
 * renames (hard links included); after each step every node's path must be
 * one of its live names and every cached name must point where the model
 * says. Prints the seed; COMPUTERD_NODES_SEED reruns one.
 */
import { describe, expect, test } from "vitest";
import { NodeTable } from "./nodes.js";

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

const ROOT_INODE = 77;
const DIRS = [2, 3, 4];
const FILES = [5, 6, 7, 8, 9];
const NAMES = ["a", "b", "c", "d"];

class Model {
  readonly dentries = new Map<string, number>();
  readonly lookups = new Map<number, number>();

  key(parent: number, name: string): string {
    return `${parent}/${name}`;
  }

  paths(node: number): string[] {
    if (node === 1) return ["/"];
    const out: string[] = [];
    for (const [key, child] of this.dentries) {
      if (child !== node) continue;
      const [parent, name] = key.split("/") as [string, string];
      for (const dir of this.paths(Number(parent))) out.push(dir === "/" ? `/${name}` : `${dir}/${name}`);
    }
    return out;
  }
}

function run(seed: number, steps: number): void {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const table = new NodeTable(ROOT_INODE);
  const model = new Model();
  const log: string[] = [];
  for (let step = 0; step < steps; step++) {
    const roll = next();
    const dirNames = (dir: number) => [...model.dentries].filter(([, child]) => child === dir).length;
    if (roll < 0.45) {
      // Directories live under the root and have one name; files go anywhere a known directory is.
      const isDir = next() < 0.3;
      const node = isDir ? pick(DIRS) : pick(FILES);
      const parents = [1, ...DIRS.filter((dir) => model.paths(dir).length > 0)];
      const parent = isDir ? 1 : pick(parents);
      const name = pick(NAMES);
      if (isDir && dirNames(node) > 0 && model.dentries.get(model.key(parent, name)) !== node) continue;
      if (DIRS.includes(model.dentries.get(model.key(parent, name)) ?? -1)) continue;
      log.push(`remember ${parent} ${name} ${node}`);
      table.remember(parent, name, node);
      model.lookups.set(node, (model.lookups.get(node) ?? 0) + 1);
      model.dentries.set(model.key(parent, name), node);
    } else if (roll < 0.65) {
      const known = [...model.lookups.keys()];
      if (known.length === 0) continue;
      const node = pick(known);
      // The kernel forgets a directory only after everything below it.
      if (DIRS.includes(node) && [...model.dentries.keys()].some((key) => key.startsWith(`${node}/`))) continue;
      const count = 1 + Math.floor(next() * (model.lookups.get(node) ?? 1));
      log.push(`forget ${node} ${count}`);
      table.forget(node, count);
      const left = (model.lookups.get(node) ?? 0) - count;
      if (left > 0) model.lookups.set(node, left);
      else {
        model.lookups.delete(node);
        for (const [key, child] of [...model.dentries]) if (child === node) model.dentries.delete(key);
      }
    } else if (roll < 0.8) {
      const entries = [...model.dentries.keys()];
      if (entries.length === 0) continue;
      const [parent, name] = pick(entries).split("/") as [string, string];
      if (DIRS.includes(model.dentries.get(`${parent}/${name}`) ?? -1)) continue;
      log.push(`removed ${parent} ${name}`);
      table.removed(Number(parent), name);
      model.dentries.delete(`${parent}/${name}`);
    } else {
      const entries = [...model.dentries].filter(([, child]) => FILES.includes(child)).map(([key]) => key);
      if (entries.length === 0) continue;
      const [parent, name] = pick(entries).split("/") as [string, string];
      const newParent = pick([1, ...DIRS.filter((dir) => model.paths(dir).length > 0)]);
      const newName = pick(NAMES);
      if (DIRS.includes(model.dentries.get(model.key(newParent, newName)) ?? -1)) continue;
      if (`${parent}/${name}` === model.key(newParent, newName)) continue;
      log.push(`renamed ${parent} ${name} ${newParent} ${newName}`);
      table.renamed(Number(parent), name, newParent, newName);
      const node = model.dentries.get(`${parent}/${name}`) as number;
      model.dentries.delete(`${parent}/${name}`);
      model.dentries.set(model.key(newParent, newName), node);
    }
    const context = `seed ${seed}, after:\n${log.join("\n")}`;
    for (const node of [...DIRS, ...FILES]) {
      const paths = model.paths(node);
      const path = table.path(node);
      if (paths.length === 0) expect(path, context).toBeUndefined();
      else expect(paths, context).toContain(path);
    }
    for (const parent of [1, ...DIRS]) {
      for (const name of NAMES) {
        expect(table.child(parent, name), context).toBe(model.dentries.get(model.key(parent, name)));
      }
    }
    expect(table.size, context).toBe(model.lookups.size);
  }
}

describe("NodeTable", () => {
  test("the root is node 1 and its inode maps both ways", () => {
    const table = new NodeTable(ROOT_INODE);
    expect(table.nodeOf(ROOT_INODE)).toBe(1);
    expect(table.inodeOf(1)).toBe(ROOT_INODE);
    expect(table.nodeOf(5)).toBe(5);
    expect(table.path(1)).toBe("/");
  });

  test("rekey: a held inode answers a fresh node id; the stale one keeps the inode until forgotten, and is never answered again", () => {
    const forgotten: number[] = [];
    const table = new NodeTable(ROOT_INODE, (inode) => forgotten.push(inode));
    table.remember(1, "f", 5);
    table.rekey(5);
    const fresh = table.nodeOf(5);
    expect(fresh).toBeGreaterThan(2 ** 32);
    expect(table.inodeOf(fresh)).toBe(5);
    expect(table.inodeOf(5)).toBe(5);
    expect(table.holds(5)).toBe(true);
    // The next lookup of the name (the caller invalidated it) gets the fresh node.
    table.remember(1, "f", fresh);
    expect(table.child(1, "f")).toBe(fresh);
    expect(table.path(fresh)).toBe("/f");
    expect(table.path(5)).toBeUndefined();
    // The fresh node forgotten first: the stale one is still held, so the inode keeps the fresh id.
    table.forget(fresh, 1);
    expect(forgotten).toEqual([]);
    expect(table.holds(5)).toBe(true);
    expect(table.nodeOf(5)).toBe(fresh);
    table.forget(5, 1);
    expect(forgotten).toEqual([5]);
    expect(table.holds(5)).toBe(false);
    expect(table.nodeOf(5)).toBe(5);
    expect(table.size).toBe(0);
    // An inode the kernel does not hold needs no new id; nor does the root.
    table.rekey(6);
    expect(table.nodeOf(6)).toBe(6);
    table.rekey(ROOT_INODE);
    expect(table.nodeOf(ROOT_INODE)).toBe(1);
  });

  test("rekey twice: each older node is stale until its own forget; the inode is forgotten with the last", () => {
    const forgotten: number[] = [];
    const table = new NodeTable(ROOT_INODE, (inode) => forgotten.push(inode));
    table.remember(1, "f", 7);
    table.rekey(7);
    const second = table.nodeOf(7);
    table.remember(1, "f", second);
    table.rekey(7);
    const third = table.nodeOf(7);
    expect(new Set([7, second, third]).size).toBe(3);
    table.remember(1, "f", third);
    table.forget(second, 1);
    expect(forgotten).toEqual([]);
    expect(table.inodeOf(third)).toBe(7);
    table.forget(third, 1);
    expect(forgotten).toEqual([]);
    expect(table.nodeOf(7)).toBe(third);
    table.forget(7, 1);
    expect(forgotten).toEqual([7]);
    expect(table.nodeOf(7)).toBe(7);
  });

  test("random lookups, forgets, unlinks and renames match the model", () => {
    const fixed = process.env.COMPUTERD_NODES_SEED;
    const seeds = fixed ? [Number(fixed)] : Array.from({ length: 40 }, () => Math.floor(Math.random() * 2 ** 31));
    for (const seed of seeds) {
      console.log(`NodeTable model seed ${seed}`);
      run(seed, 300);
    }
  });
});

/**
 * MountFs's names, owners and link counts against a reference model:
 * random creates, mkdirs, FIFOs and sockets (which live beside the store,
 * special-files.ts), hard links, renames, unlinks, rmdirs, chowns and
 * setgid directories by random callers, compared after every step (types,
 * link counts, owners, listings) and on every refusal (its errno, and
 * nothing changed). Prints the seed; COMPUTERD_POSIX_SEED replays one.
 */
import { constants } from "node:fs";
import { constants as os } from "node:os";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { expect, test } from "vitest";
import { errnoOf } from "./errno.js";
import type { Caller } from "./inode-owners.js";
import { MountFs } from "./mount-fs.js";

type Kind = "file" | "dir" | "fifo" | "sock";

interface Node {
  kind: Kind;
  uid: number;
  gid: number;
  setgid: boolean;
}

const TYPE: Record<Kind, number> = {
  file: constants.S_IFREG,
  dir: constants.S_IFDIR,
  fifo: constants.S_IFIFO,
  sock: constants.S_IFSOCK,
};
const CALLERS: readonly Caller[] = [
  { uid: 0, gid: 0, pid: 0 },
  { uid: 1000, gid: 1000, pid: 0 },
  { uid: 1001, gid: 50, pid: 0 },
];
const NAMES = ["a", "b", "c", "d"];

/** The model: paths to nodes (hard links share one). */
class Model {
  readonly paths = new Map<string, Node>([["/", { kind: "dir", uid: 0, gid: 0, setgid: false }]]);

  children(dir: string): string[] {
    const prefix = dir === "/" ? "/" : `${dir}/`;
    return [...this.paths.keys()].filter(
      (p) => p !== "/" && p.startsWith(prefix) && !p.slice(prefix.length).includes("/"),
    );
  }

  nlink(path: string, node: Node): number {
    if (node.kind === "dir") return 2 + this.children(path).filter((p) => this.paths.get(p)?.kind === "dir").length;
    return [...this.paths.values()].filter((other) => other === node).length;
  }

  parentOf(path: string): string {
    return path.slice(0, path.lastIndexOf("/")) || "/";
  }
}

function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** Runs `op` on MountFs and answers its errno (0 on success). */
async function errnoOfOp(op: () => unknown): Promise<number> {
  try {
    await op();
    return 0;
  } catch (error) {
    return -errnoOf(error);
  }
}

function compare(fs: MountFs, model: Model, step: string): void {
  for (const [path, node] of model.paths) {
    const stat = fs.getattr(path);
    expect([step, path, stat.mode & constants.S_IFMT, stat.nlink, stat.uid, stat.gid]).toEqual([
      step,
      path,
      TYPE[node.kind],
      model.nlink(path, node),
      node.uid,
      node.gid,
    ]);
    if (node.kind === "dir") {
      expect([step, path, (stat.mode & 0o2000) !== 0]).toEqual([step, path, node.setgid]);
      const listed = fs.readdirPlus(path).names.slice(2).sort();
      const expected = model
        .children(path)
        .map((p) => p.slice(p.lastIndexOf("/") + 1))
        .sort();
      expect([step, path, listed]).toEqual([step, path, expected]);
    }
  }
}

const SEED = Number(process.env.COMPUTERD_POSIX_SEED ?? Date.now() % 100_000);

test(`names, owners and link counts follow the model (seed ${SEED}, COMPUTERD_POSIX_SEED=${SEED} replays it)`, async () => {
  const db = openNodeDatabase();
  await new WorkspaceFilesystem(db).mkdir("/workspace", { recursive: true });
  const fs = new MountFs(db, "/workspace", { groupsOf: () => [] });
  const model = new Model();
  const random = rng(SEED);
  const ops: string[] = [];
  const { EEXIST, ENOTEMPTY } = os.errno;
  for (let i = 0; i < 600; i++) {
    const all = [...model.paths.keys()];
    const dirs = all.filter((p) => model.paths.get(p)?.kind === "dir");
    const nonDirs = all.filter((p) => model.paths.get(p)?.kind !== "dir");
    const dir = pick(random, dirs);
    const path = `${dir === "/" ? "" : dir}/${pick(random, NAMES)}`;
    const caller = pick(random, CALLERS);
    const taken = model.paths.has(path);
    const parent = model.paths.get(dir) as Node;
    const born = (kind: Kind): Node => ({
      kind,
      uid: caller.uid,
      gid: parent.setgid ? parent.gid : caller.gid,
      setgid: kind === "dir" && parent.setgid,
    });
    const roll = random();
    let step: string;
    let expected = 0;
    let got: number;
    if (roll < 0.18) {
      step = `create ${path} by ${caller.uid}`;
      // The kernel looks a name up before CREATE; one that exists reaches MountFs only as a special file.
      if (taken && model.paths.get(path)?.kind !== "fifo" && model.paths.get(path)?.kind !== "sock") continue;
      expected = taken ? EEXIST : 0;
      got = await errnoOfOp(async () => fs.release(await fs.create(path, 0o644, caller)));
      if (got === 0) model.paths.set(path, born("file"));
    } else if (roll < 0.32) {
      step = `mkdir ${path} by ${caller.uid}`;
      expected = taken ? EEXIST : 0;
      got = await errnoOfOp(() => fs.mkdir(path, 0o755, caller));
      if (got === 0) model.paths.set(path, born("dir"));
    } else if (roll < 0.46) {
      const kind: Kind = random() < 0.7 ? "fifo" : "sock";
      step = `mknod ${kind} ${path} by ${caller.uid}`;
      expected = taken ? EEXIST : 0;
      got = await errnoOfOp(() => fs.mknod(path, TYPE[kind] | 0o644, caller));
      if (got === 0) model.paths.set(path, born(kind));
    } else if (roll < 0.56 && nonDirs.length > 0) {
      const existing = pick(random, nonDirs);
      step = `link ${existing} ${path}`;
      if (taken) continue; // the kernel refuses an existing name before LINK
      got = await errnoOfOp(() => fs.link(existing, path));
      if (got === 0) model.paths.set(path, model.paths.get(existing) as Node);
    } else if (roll < 0.68 && nonDirs.length > 0) {
      const victim = pick(random, nonDirs);
      step = `unlink ${victim}`;
      got = await errnoOfOp(() => fs.unlink(victim));
      if (got === 0) model.paths.delete(victim);
    } else if (roll < 0.76 && dirs.length > 1) {
      const victim = pick(
        random,
        dirs.filter((d) => d !== "/"),
      );
      step = `rmdir ${victim}`;
      expected = model.children(victim).length > 0 ? ENOTEMPTY : 0;
      got = await errnoOfOp(() => fs.rmdir(victim));
      if (got === 0) model.paths.delete(victim);
    } else if (roll < 0.88 && nonDirs.length > 0) {
      const source = pick(random, nonDirs);
      const over = model.paths.get(path);
      step = `rename ${source} ${path}`;
      if (over?.kind === "dir" || path === source) continue;
      got = await errnoOfOp(() => fs.rename(source, path));
      // rename(2) onto another name of the same file changes nothing.
      if (got === 0 && over !== model.paths.get(source)) {
        model.paths.set(path, model.paths.get(source) as Node);
        model.paths.delete(source);
      }
    } else if (roll < 0.95) {
      const target = pick(random, all);
      const uid = pick(random, [0, 1000, 1001]);
      const gid = pick(random, [0, 50, 1000]);
      step = `chown ${target} ${uid}:${gid}`;
      got = await errnoOfOp(() => fs.chown(target, uid, gid, CALLERS[0]));
      if (got === 0) {
        const node = model.paths.get(target) as Node;
        node.uid = uid;
        node.gid = gid;
      }
    } else {
      step = `chmod 2777 ${dir}`;
      got = await errnoOfOp(() => fs.chmod(dir, 0o2777));
      if (got === 0) parent.setgid = true;
    }
    ops.push(step);
    expect([`seed ${SEED} step ${i}: ${step}`, got]).toEqual([`seed ${SEED} step ${i}: ${step}`, expected]);
    compare(fs, model, `seed ${SEED} step ${i}: ${step}`);
  }
  // The run did reach every kind of node.
  expect(ops.filter((op) => op.startsWith("mknod")).length).toBeGreaterThan(10);
  expect(ops.filter((op) => op.startsWith("rename")).length).toBeGreaterThan(10);
});

/**
 * Fault injection (`docs/sync.md`): the remote is
 * wrapped so that one call, chosen by a seeded PRNG, fails — rejected before
 * it reaches the peer, rejected after the peer acted (the response is lost),
 * or with one of its streams (push's `changes`, fetchChanges' entries, the
 * object streams of pushObjects/fetchObjects) breaking after n items. Then
 * the Durable Object "reconnects": reconcileWatermarks on the bare peer, and
 * tick + pushOnce until quiet. Both trees must be identical, and every file
 * either side wrote must be there with its content (nothing lost or torn).
 *
 * The restart variant drops the peer instead, at a random call, and
 * reconnects to a fresh empty one: reconcile + pushOnce must rebuild it as a
 * copy of the Durable Object.
 *
 * `SYNC_FAULT_ITERATIONS` (default 100; the restart variant runs 60% of
 * that) seeds from `SYNC_FAULT_FIRST_SEED`; `SYNC_FAULT_SEED=n` replays one.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bigContent, mulberry32, type Random } from "../../test/random.js";
import { bytesOf } from "../../test/util.js";
import { CHUNK_SIZE } from "../constants.js";
import type { Database } from "../database.js";
import { openNodeDatabase } from "../database.node.js";
import { WorkspaceFilesystem } from "../filesystem.js";
import { parentOf } from "../path.js";
import type { FoundEntry } from "../types.js";
import type { SyncLocal } from "./local.js";
import { SyncPeer } from "./peer.js";
import { pullBatch, pullOnce } from "./pull.js";
import { pushBatch, pushOnce } from "./push.js";
import { reconcileWatermarks, tick } from "./reconcile.js";
import type { SyncRPC } from "./types.js";

const ITERATIONS = Number(process.env.SYNC_FAULT_ITERATIONS ?? 100);
/** The restart variant rebuilds the whole tree each time, so it runs fewer. */
const RESTART_ITERATIONS = Math.ceil(ITERATIONS * 0.6);
const FIRST_SEED = Number(process.env.SYNC_FAULT_FIRST_SEED ?? 1);
const ONLY_SEED = process.env.SYNC_FAULT_SEED === undefined ? undefined : Number(process.env.SYNC_FAULT_SEED);

const NAMES = ["a", "b", "c"];
const INJECTED = "injected fault";

// ---------------------------------------------------------------------------
// The faulty link

type FaultKind = "before" | "after" | "stream";

interface Fault {
  /** Zero-based index of the failing call, over every call through the wrapper. */
  at: number;
  kind: FaultKind;
  /** For `stream`: items that get through before the stream errors. */
  items: number;
}

interface FaultyLink {
  remote: SyncRPC;
  /** What failed, once it did. */
  fired(): string | undefined;
  calls(): number;
}

/** A stream that passes `items` items through and then errors (unless it ends first). */
function breakAfter<T>(stream: ReadableStream<T>, items: number, onBreak: () => void): ReadableStream<T> {
  const reader = stream.getReader();
  let passed = 0;
  return new ReadableStream<T>(
    {
      async pull(controller) {
        if (passed === items) {
          onBreak();
          await reader.cancel().catch(() => {});
          controller.error(new Error(`${INJECTED}: stream broke after ${items} items`));
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else {
          passed += 1;
          controller.enqueue(value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * Wraps `target` so that call number `fault.at` fails. `onFault` runs as it
 * fails (the restart variant swaps the peer there).
 */
function faulty(target: () => SyncRPC, fault: Fault, onFault: () => void = () => {}): FaultyLink {
  let calls = 0;
  let fired: string | undefined;
  const fire = (what: string): void => {
    if (fired !== undefined) return;
    fired = what;
    onFault();
  };
  /** The fault due on this call, if any; streams only fail on methods that carry one. */
  const due = (hasStream: boolean): FaultKind | undefined => {
    const index = calls++;
    if (fired !== undefined || index !== fault.at) return undefined;
    return fault.kind === "stream" && !hasStream ? "before" : fault.kind;
  };
  const rejectBefore = (method: string): never => {
    fire(`${method} rejected before reaching the peer`);
    throw new Error(`${INJECTED}: ${method} rejected`);
  };
  const loseResponse = (method: string): never => {
    fire(`${method} applied, response lost`);
    throw new Error(`${INJECTED}: ${method} response lost`);
  };
  const streamBroke = (method: string) => () => fire(`${method} stream broke after ${fault.items} items`);
  const simple =
    <A extends unknown[], R>(method: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const kind = due(false);
      if (kind === "before") rejectBefore(method);
      const result = await call(...args);
      if (kind === "after") loseResponse(method);
      return result;
    };
  const remote: SyncRPC = {
    watermarks: simple("watermarks", (o?: { settle?: boolean }) => target().watermarks(o)),
    readEntry: simple("readEntry", (p: string) => target().readEntry(p)),
    hasObjects: simple("hasObjects", (h: Uint8Array[]) => target().hasObjects(h)),
    async push(request) {
      const kind = due(true);
      if (kind === "before") rejectBefore("push");
      const changes =
        kind === "stream" ? breakAfter(request.changes, fault.items, streamBroke("push changes")) : request.changes;
      const result = await target().push({ ...request, changes });
      if (kind === "after") loseResponse("push");
      return result;
    },
    async fetchChanges(request) {
      const kind = due(true);
      if (kind === "before") rejectBefore("fetchChanges");
      const result = await target().fetchChanges(request);
      if (kind === "after") {
        await result.stream.cancel().catch(() => {});
        loseResponse("fetchChanges");
      }
      if (kind !== "stream") return result;
      return { ...result, stream: breakAfter(result.stream, fault.items, streamBroke("fetchChanges")) };
    },
    // A promise of the stream, as a capnweb stub answers: the driver awaits it either way.
    fetchObjects: (async (hashes: Uint8Array[]) => {
      const kind = due(true);
      if (kind === "before") rejectBefore("fetchObjects");
      const stream = await target().fetchObjects(hashes);
      if (kind === "after") {
        await stream.cancel().catch(() => {});
        loseResponse("fetchObjects");
      }
      return kind === "stream" ? breakAfter(stream, fault.items, streamBroke("fetchObjects")) : stream;
    }) as unknown as SyncRPC["fetchObjects"],
    async pushObjects(objects) {
      const kind = due(true);
      if (kind === "before") {
        await objects.cancel().catch(() => {});
        rejectBefore("pushObjects");
      }
      const sent = kind === "stream" ? breakAfter(objects, fault.items, streamBroke("pushObjects")) : objects;
      await target().pushObjects(sent);
      if (kind === "after") loseResponse("pushObjects");
    },
  };
  return { remote, fired: () => fired, calls: () => calls };
}

// ---------------------------------------------------------------------------
// Random trees with a model of what each side wrote

/** Content hash per file path each side wrote (and did not delete or move since). */
type Model = Map<string, string>;

/**
 * A short content hash; a small (text) file shows its text too, so a log can
 * say whose write survived. node:crypto, synchronous: the checks hash a few
 * hundred files per iteration and the async WebCrypto call dominated.
 */
function digest(bytes: Uint8Array): string {
  const hex = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  return bytes.byteLength <= 16 ? `${hex} "${new TextDecoder().decode(bytes)}"` : hex;
}

/** A multi-chunk file whose every chunk is unique to `id`, so a tree of a few exceeds one 4 MiB blob batch. */
function uniqueBig(rng: Random, id: number): Uint8Array {
  const { bytes } = bigContent(rng);
  for (let at = 0; at < bytes.byteLength; at += CHUNK_SIZE) {
    for (let k = 0; k < 4 && at + k < bytes.byteLength; k++) bytes[at + k] = (id >>> (8 * k)) & 0xff;
  }
  return bytes;
}

interface Writer {
  fs: WorkspaceFilesystem;
  root: string;
  model: Model;
  log: string[];
  name: string;
  next: { id: number };
}

function randomFile(rng: Random, root: string): string {
  const depth = rng.range(0, 2);
  const dirs = Array.from({ length: depth }, () => rng.pick(NAMES));
  return [root, ...dirs, `f${rng.int(12)}`].join("/");
}

async function write(rng: Random, w: Writer, path: string, big: boolean): Promise<void> {
  const id = w.next.id++;
  const bytes = big
    ? rng.chance(0.7)
      ? uniqueBig(rng, id)
      : bigContent(rng).bytes
    : new TextEncoder().encode(`${w.name}${id}`);
  await w.fs.mkdir(parentOf(path), { recursive: true });
  await w.fs.writeFile(path, bytes);
  w.model.set(path, digest(bytes));
  w.log.push(
    `${w.name} write ${path} ${bytes.byteLength <= 16 ? `"${new TextDecoder().decode(bytes)}"` : `${bytes.byteLength} B`}`,
  );
}

/** A few dozen files under `root`, some multi-chunk. */
async function buildTree(rng: Random, w: Writer, files: number, bigs: number): Promise<void> {
  for (let i = 0; i < files; i++) await write(rng, w, randomFile(rng, w.root), false);
  for (let i = 0; i < bigs; i++) await write(rng, w, randomFile(rng, w.root), true);
}

/** One edit under the writer's own root: rewrite, new file, delete or rename. */
async function edit(rng: Random, w: Writer): Promise<void> {
  const held = [...w.model.keys()];
  const kind = rng.weighted({ rewrite: 3, create: 3, big: 1, delete: 2, rename: 2 });
  if (held.length === 0 || kind === "create" || kind === "big") {
    await write(rng, w, randomFile(rng, w.root), kind === "big");
    return;
  }
  const path = rng.pick(held);
  if (kind === "rewrite") {
    await write(rng, w, path, false);
  } else if (kind === "delete") {
    await w.fs.rm(path);
    w.model.delete(path);
    w.log.push(`${w.name} rm ${path}`);
  } else {
    const to = randomFile(rng, w.root);
    if (to === path || held.some((p) => p.startsWith(`${to}/`) || to.startsWith(`${p}/`))) return;
    await w.fs.mkdir(parentOf(to), { recursive: true });
    await w.fs.rename(path, to);
    w.model.set(to, w.model.get(path) as string);
    w.model.delete(path);
    w.log.push(`${w.name} rename ${path} ${to}`);
  }
}

async function randomSync(rng: Random, local: SyncLocal, remote: SyncRPC, log: string[]): Promise<void> {
  const kind = rng.weighted({ push: 3, pull: 3, tick: 2, pushBatch: 2, pullBatch: 2 });
  const budget = { maxEntries: rng.range(1, 40), maxBytes: rng.pick([1024, 256 * 1024, CHUNK_SIZE, 4 * 1024 * 1024]) };
  log.push(`sync ${kind}${kind.endsWith("Batch") ? ` ${JSON.stringify(budget)}` : ""}`);
  if (kind === "push") await pushOnce(local, remote);
  else if (kind === "pull") await pullOnce(local, remote);
  else if (kind === "tick") await tick(local, remote);
  else if (kind === "pushBatch") await pushBatch(local, remote, budget);
  else await pullBatch(local, remote, budget);
}

/** tick + pushOnce until a round moves nothing (at most 4 rounds). */
async function settle(local: SyncLocal, remote: SyncRPC, log: string[]): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const { pulled, pushed } = await tick(local, remote);
    const again = await pushOnce(local, remote);
    log.push(`settle tick → pulled ${pulled.applied}, pushed ${pushed}; push → ${again}`);
    if (pulled.applied === 0 && pushed === 0 && again === 0) return;
  }
  throw new Error("sync did not settle within 4 rounds");
}

/** `digest` of a big file, hashed piece by piece as it streams. */
async function streamDigest(fs: WorkspaceFilesystem, path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const piece of (await fs.readFile(path)) as unknown as AsyncIterable<Uint8Array>) hash.update(piece);
  return hash.digest("hex").slice(0, 16);
}

/** Every path with what the peers must agree on (as `snapshotTree`), and each file's content hash. */
async function treeOf(fs: WorkspaceFilesystem): Promise<{ tree: Record<string, string>; files: Model }> {
  const tree: Record<string, string> = {};
  const files: Model = new Map();
  // Links are listed as "symlink", which find's public type (the original's) leaves out.
  for (const { path, type } of (await fs.find("/")) as FoundEntry[]) {
    const stat = await fs.lstat(path);
    if (type === "file") {
      const hash = stat.size <= 16 ? digest(await bytesOf(await fs.readFile(path))) : await streamDigest(fs, path);
      files.set(path, hash);
      tree[path] = `file ${stat.mode.toString(8)} ${hash}`;
    } else if (type === "symlink") {
      tree[path] = `symlink -> ${await fs.readlink(path)}`;
    } else {
      tree[path] = `dir ${stat.mode.toString(8)}`;
    }
  }
  return { tree, files };
}

function under(files: Model, root: string): Model {
  return new Map([...files].filter(([path]) => path.startsWith(`${root}/`)));
}

function diffModel(side: string, actual: Model, expected: Model): string[] {
  const out: string[] = [];
  for (const [path, hash] of expected) {
    if (actual.get(path) !== hash) out.push(`${side} ${path}: want ${hash}, have ${actual.get(path) ?? "nothing"}`);
  }
  for (const path of actual.keys()) if (!expected.has(path)) out.push(`${side} ${path}: not written by anyone`);
  return out;
}

function diffTrees(a: Record<string, string>, b: Record<string, string>): string[] {
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return paths.filter((p) => a[p] !== b[p]).map((p) => `${p}: DO=${a[p] ?? "-"} peer=${b[p] ?? "-"}`);
}

// ---------------------------------------------------------------------------
// One iteration

interface Outcome {
  fired: string | undefined;
  log: string[];
}

function chooseFault(rng: Random, restart: boolean): Fault {
  return {
    // A restart also happens between steps, after the phase ran clean.
    at: restart && rng.chance(0.2) ? Number.POSITIVE_INFINITY : rng.int(30),
    kind: rng.weighted({ before: 2, after: 2, stream: 3 }),
    items: rng.chance(0.6) ? rng.int(3) : rng.int(300),
  };
}

async function runIteration(seed: number, restart: boolean): Promise<Outcome> {
  const rng = mulberry32(seed * 2 + (restart ? 1 : 0));
  const log: string[] = [];
  let clock = 1_700_000_000_000;
  const now = () => (clock += 1000);
  const open: (Database & { close(): void })[] = [];
  const database = () => {
    const db = openNodeDatabase();
    open.push(db);
    return db;
  };
  try {
    const doFs = new WorkspaceFilesystem(database(), { now });
    const local: SyncLocal = { db: doFs.db, now };
    let peerFs = new WorkspaceFilesystem(database(), { now });
    let peer = new SyncPeer(peerFs.db, { now });
    const next = { id: 0 };
    const writer = (fs: WorkspaceFilesystem, name: string): Writer => ({
      fs,
      root: `/${name.toLowerCase()}`,
      model: new Map(),
      log,
      name,
      next,
    });
    const theDO = writer(doFs, "DO");
    const thePeer = writer(peerFs, "peer");
    await buildTree(rng, theDO, rng.range(20, 50), rng.range(0, 4));
    await buildTree(rng, thePeer, rng.range(5, 20), rng.range(0, 2));

    const fault = chooseFault(rng, restart);
    log.push(`fault ${JSON.stringify(fault)}${restart ? " (restart)" : ""}`);
    const restartPeer = (): void => {
      peerFs = new WorkspaceFilesystem(database(), { now });
      peer = new SyncPeer(peerFs.db, { now });
      thePeer.fs = peerFs;
      thePeer.model = new Map(); // the container's unsynced writes died with it
      log.push("peer restarted empty");
    };
    const link = faulty(() => peer, fault, restart ? restartPeer : undefined);
    // A few steps, then more until the fault has fired (the fault index can lie past the planned calls).
    const steps = rng.range(3, 8);
    try {
      for (let i = 0; i < steps || (link.fired() === undefined && i < 30); i++) {
        await randomSync(rng, local, link.remote, log);
        for (let e = rng.int(4); e > 0; e--) await edit(rng, rng.chance(0.6) ? theDO : thePeer);
      }
    } catch (error) {
      if (!String((error as Error)?.message).startsWith(INJECTED)) throw error;
      log.push(`  ✗ ${(error as Error).message}`);
    }
    if (restart && link.fired() === undefined) restartPeer(); // the phase ran clean: restart between steps
    log.push(`fault ${link.fired() ?? "did not fire"} after ${link.calls()} calls; reconnecting`);

    const marks = await reconcileWatermarks(local, peer);
    log.push(`reconcile → ${JSON.stringify(marks)}`);
    if (restart) {
      const sent = await pushOnce(local, peer);
      log.push(`push → ${sent}`);
      const tree = diffTrees((await treeOf(doFs)).tree, (await treeOf(peerFs)).tree);
      if (tree.length > 0) throw new Error(`restarted peer differs from the DO:\n  ${tree.join("\n  ")}`);
    }
    await settle(local, peer, log);

    const sides = [
      ["DO", await treeOf(doFs)],
      ["peer", await treeOf(peerFs)],
    ] as const;
    const problems = diffTrees(sides[0][1].tree, sides[1][1].tree);
    // After a restart, the peer's writes the DO had not pulled died with the container: /peer is not checked.
    for (const [name, { files }] of sides) {
      for (const w of restart ? [theDO] : [theDO, thePeer]) {
        const actual = under(files, w.root);
        problems.push(...diffModel(name, actual, w.model));
      }
    }
    if (problems.length > 0) throw new Error(`after reconnecting:\n  ${problems.join("\n  ")}`);
    return { fired: link.fired(), log };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    throw new Error(`seed ${seed}${restart ? " (restart)" : ""}: ${message}\n--- log ---\n${log.join("\n")}`);
  } finally {
    for (const db of open) db.close();
  }
}

describe("sync under injected faults", () => {
  const seedsOf = (n: number) =>
    ONLY_SEED !== undefined ? [ONLY_SEED] : Array.from({ length: n }, (_, i) => FIRST_SEED + i);
  for (const restart of [false, true]) {
    const seeds = seedsOf(restart ? RESTART_ITERATIONS : ITERATIONS);
    const title = restart
      ? `a peer restarted at a random call is rebuilt by reconcile + push (${seeds.length} seeds)`
      : `a fault at a random call loses and tears nothing after reconnecting (${seeds.length} seeds)`;
    it(title, async () => {
      const cpu = process.cpuUsage();
      const fired = new Map<string, number>();
      const clean = restart ? "(restarted between steps)" : "(no fault: ran clean)";
      for (const seed of seeds) {
        const { fired: what } = await runIteration(seed, restart);
        const key = what === undefined ? clean : what.replace(/\d+ items/, "n items");
        fired.set(key, (fired.get(key) ?? 0) + 1);
      }
      const summary = [...fired].sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${n} × ${k}`);
      const { user, system } = process.cpuUsage(cpu);
      const took = `${((user + system) / 1e6).toFixed(1)} s CPU`;
      console.log(`${restart ? "restart" : "fault"} variant, ${seeds.length} seeds, ${took}:\n${summary.join("\n")}`);
      // Guard against a fuzz that silently stopped injecting: most seeds must hit their fault mid-sync.
      if (seeds.length >= 20) expect(seeds.length - (fired.get(clean) ?? 0)).toBeGreaterThan(seeds.length / 2);
    }, 600_000);
  }
});

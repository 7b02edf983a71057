/**
 * fsx: a model-based exerciser of one file, in the spirit of the classic
 * fsx (written from scratch). A seeded PRNG generates operations on a file
 * of up to 8 MiB: writes at random offsets of up to 1 MiB (often across
 * 512 KiB chunk boundaries and past the end, leaving holes), truncates down
 * and up (by handle, by path, by path while closed), copy_file_range within
 * the file, mmap writes, fsync, pulls by a sync peer, close and reopen
 * (with and without O_TRUNC). Every op is applied to an in-memory model and
 * to each target; the targets are compared with the model after every op.
 *
 * What is compared (reads are sampled to keep CI fast):
 * - after every op: each target's size, and the range the op touched (the
 *   bytes written or copied, the hole a write or copy past the end left, the
 *   range a truncate grew, 4 KiB on each side of a new end). A touched range
 *   over 16 KiB is sampled: its first and last 4 KiB, 4 KiB at every chunk
 *   boundary in it (where stale chunks show) and one random 16 KiB window;
 * - every `fullEvery` ops and at the end: the whole file; after a pull, the
 *   peer's whole copy.
 * Bytes are compared directly; a mismatch reports both sides' FNV-1a hashes
 * and the first differing offset.
 *
 * On a mismatch the failing op list is shrunk (the shortest failing suffix,
 * then delta debugging that removes runs of ops, then single ops), replaying
 * each candidate on fresh targets, and the error names the seed and the
 * shrunk list. Runtime-neutral: dofs runs it in Node and workerd, computerd
 * against its FUSE mount.
 */
import { CHUNK_SIZE } from "../src/constants.js";
import { mulberry32, type Random } from "./random.js";

export const FSX_MAX_SIZE = 8 * 1024 * 1024;
export const FSX_MAX_OP = 1024 * 1024;

export type FsxTruncateVia = "fd" | "path" | "closed";

export type FsxOp =
  | { kind: "write"; offset: number; length: number; seed: number }
  /** Writes through a shared mapping: only the part inside the current size lands (a mapping cannot grow a file). */
  | { kind: "mmap"; offset: number; length: number; seed: number }
  | { kind: "truncate"; size: number; via: FsxTruncateVia }
  /** copy_file_range within the file: ranges never overlap; at most the bytes up to the end are copied. */
  | { kind: "copy"; src: number; dst: number; length: number }
  | { kind: "fsync" }
  /** A commit point driven by the sync peer: it pulls the file and its copy is compared too. */
  | { kind: "pull" }
  | { kind: "reopen"; trunc: boolean }
  /**
   * fallocate(2): mode 0 grows the file to the range's end, KEEP_SIZE (1) changes nothing,
   * PUNCH_HOLE|KEEP_SIZE (3) zeroes the range within the size, ZERO_RANGE (16) zeroes it and
   * grows the file, ZERO_RANGE|KEEP_SIZE (17) zeroes it within the size.
   */
  | { kind: "fallocate"; mode: FsxFallocateMode; offset: number; length: number };

export type FsxFallocateMode = 0 | 1 | 3 | 16 | 17;
const FALLOCATE_MODES: readonly FsxFallocateMode[] = [0, 1, 3, 16, 17];

export type FsxKind = FsxOp["kind"];

/** One implementation of the file under test. Ops arrive in order; `data` is the bytes a write or mmap lands. */
export interface FsxTarget {
  readonly name: string;
  apply(op: FsxOp, data: Uint8Array | undefined): Promise<void>;
  size(): Promise<number>;
  /** Bytes `[offset, offset + length)`; the caller keeps the range inside the size. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** The sync peer's copy of the whole file after the last pull (targets with a peer). */
  pulled?(): Promise<Uint8Array>;
  /** Before a whole-file compare: e.g. drop the kernel's cached pages so the daemon answers. */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

/** Fresh targets on a fresh file, for the run and for every replay while shrinking. */
export type FsxOpen = () => Promise<FsxTarget[]>;

export interface FsxRunOptions {
  seed: number;
  ops: number;
  open: FsxOpen;
  /** Whole-file compare every this many ops (default 500). */
  fullEvery?: number;
  /** Op kinds a target cannot do, left out of generation. */
  skip?: readonly FsxKind[];
  /** Time allowed for shrinking a failure (default 60 s). */
  shrinkMs?: number;
}

export interface FsxStats {
  seed: number;
  ops: number;
  ms: number;
  opsPerSecond: number;
  counts: Record<FsxKind, number>;
  /** Milliseconds spent applying each kind of op (all targets), and comparing. */
  msByKind: Record<FsxKind | "compare", number>;
  /** The largest size the file reached. */
  maxSize: number;
  /** Bytes read back from the targets and compared. */
  comparedBytes: number;
}

export class FsxFailure extends Error {
  override readonly name = "FsxFailure";
  constructor(
    readonly seed: number,
    readonly index: number,
    readonly detail: string,
    readonly shrunk: readonly FsxOp[],
    message: string,
  ) {
    super(message);
  }
}

/** Reads FSX_SEEDS=n (seeds 1..n), FSX_SEED=k (only k) and FSX_OPS=n, in Node or workerd (through `test.env`). */
export function fsxSettings(defaults: { seeds: number; ops: number }): { seeds: number[]; ops: number } {
  const env: Record<string, string | undefined> = {
    ...(import.meta as { env?: Record<string, string | undefined> }).env,
    ...(globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env,
  };
  const count = (name: string, fallback: number): number => Number(env[name] || fallback);
  const seeds = env.FSX_SEED
    ? [count("FSX_SEED", 1)]
    : Array.from({ length: count("FSX_SEEDS", defaults.seeds) }, (_, i) => i + 1);
  return { seeds, ops: count("FSX_OPS", defaults.ops) };
}

// ---------------------------------------------------------------- generation

const WEIGHTS: Record<FsxKind, number> = {
  write: 40,
  mmap: 2,
  truncate: 14,
  copy: 5,
  fsync: 3,
  pull: 0.2,
  reopen: 2,
  fallocate: 3,
};

/** Mostly small and medium: 60% up to 4 KiB, 30% up to 64 KiB, 10% up to 1 MiB. */
function opLength(rng: Random): number {
  const roll = rng.next();
  if (roll < 0.6) return rng.range(1, 4096);
  if (roll < 0.9) return rng.range(4097, 65_536);
  return rng.range(65_537, FSX_MAX_OP);
}

/** Near a chunk boundary of the 8 MiB range: where chunk bookkeeping goes wrong. */
function nearBoundary(rng: Random): number {
  return Math.max(0, rng.int(FSX_MAX_SIZE / CHUNK_SIZE + 1) * CHUNK_SIZE + rng.range(-4096, 4096));
}

function opOffset(rng: Random, size: number, length: number): number {
  const roll = rng.next();
  let at: number;
  if (roll < 0.45) at = rng.int(size + 1);
  else if (roll < 0.7) at = nearBoundary(rng);
  else if (roll < 0.85)
    at = size + rng.int(FSX_MAX_OP); // past the end: a hole
  else at = rng.int(FSX_MAX_SIZE);
  return Math.min(at, FSX_MAX_SIZE - length);
}

function newSize(rng: Random, size: number): number {
  if (rng.chance(0.55)) {
    // Down: anywhere, or to a chunk boundary give or take a little.
    return rng.chance(0.5) ? rng.int(size + 1) : Math.min(size, nearBoundary(rng));
  }
  const room = FSX_MAX_SIZE - size;
  return size + (rng.chance(0.5) ? rng.int(Math.min(room, 2 * FSX_MAX_OP) + 1) : rng.int(room + 1));
}

export function nextOp(rng: Random, size: number, weights: Record<FsxKind, number>): FsxOp {
  const kind = rng.weighted(weights);
  switch (kind) {
    case "write": {
      const length = opLength(rng);
      return { kind, offset: opOffset(rng, size, length), length, seed: rng.int(0x7fffffff) + 1 };
    }
    case "mmap": {
      const length = opLength(rng);
      return { kind, offset: rng.int(Math.max(1, size)), length, seed: rng.int(0x7fffffff) + 1 };
    }
    case "truncate":
      return { kind, size: newSize(rng, size), via: rng.weighted({ fd: 5, path: 4, closed: 1 }) };
    case "copy": {
      // Chunk-aligned a third of the time, so whole chunks can be shared by hash.
      const aligned = rng.chance(0.33);
      let length = aligned ? rng.range(1, 3) * CHUNK_SIZE : opLength(rng);
      if (aligned && rng.chance(0.5)) length -= rng.int(CHUNK_SIZE);
      const src = aligned ? rng.int(Math.floor(size / CHUNK_SIZE) + 1) * CHUNK_SIZE : rng.int(size + 1);
      let dst = aligned ? rng.int(FSX_MAX_SIZE / CHUNK_SIZE) * CHUNK_SIZE : opOffset(rng, size, length);
      if (dst < src + length && src < dst + length) dst = src + length; // no overlap (EINVAL in one file)
      if (dst + length > FSX_MAX_SIZE) {
        if (src < length) return { kind: "fsync" };
        dst = 0;
        length = Math.min(length, src);
      }
      return { kind, src, dst, length };
    }
    case "reopen":
      return { kind, trunc: rng.chance(0.1) };
    case "fallocate": {
      const length = opLength(rng);
      return { kind, mode: rng.pick(FALLOCATE_MODES), offset: opOffset(rng, size, length), length };
    }
    default:
      return { kind };
  }
}

/** The bytes of a write or mmap op: xorshift32 words from its seed (fast, and distinct per op). */
export function opData(seed: number, length: number): Uint8Array {
  const words = new Uint32Array(Math.ceil(length / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return new Uint8Array(words.buffer, 0, length);
}

export function formatOp(op: FsxOp): string {
  switch (op.kind) {
    case "write":
    case "mmap":
      return `${op.kind} @${op.offset} +${op.length} seed=${op.seed}`;
    case "truncate":
      return `truncate ${op.size} via=${op.via}`;
    case "copy":
      return `copy ${op.src}->${op.dst} +${op.length}`;
    case "reopen":
      return op.trunc ? "reopen O_TRUNC" : "reopen";
    case "fallocate":
      return `fallocate mode=${op.mode} @${op.offset} +${op.length}`;
    default:
      return op.kind;
  }
}

// ---------------------------------------------------------------- model

/** The reference: a buffer whose bytes past `size` are always zero. */
export class FsxModel {
  readonly bytes = new Uint8Array(FSX_MAX_SIZE);
  size = 0;

  /** Applies `op`; answers the bytes a write or mmap lands (undefined for the rest). */
  apply(op: FsxOp): Uint8Array | undefined {
    switch (op.kind) {
      case "write": {
        const data = opData(op.seed, op.length);
        this.bytes.set(data, op.offset);
        this.size = Math.max(this.size, op.offset + op.length);
        return data;
      }
      case "mmap": {
        const data = opData(op.seed, Math.max(0, Math.min(op.length, this.size - op.offset)));
        this.bytes.set(data, op.offset);
        return data;
      }
      case "truncate":
        this.#truncate(op.size);
        return undefined;
      case "copy": {
        const copied = Math.max(0, Math.min(op.length, this.size - op.src));
        if (copied > 0) {
          this.bytes.copyWithin(op.dst, op.src, op.src + copied);
          this.size = Math.max(this.size, op.dst + copied);
        }
        return undefined;
      }
      case "reopen":
        if (op.trunc) this.#truncate(0);
        return undefined;
      case "fallocate": {
        const end = op.offset + op.length;
        const keepSize = (op.mode & 1) !== 0;
        // Bytes past the size are zero already: zeroing up to the end is right whether or not it grows.
        if (op.mode !== 0 && op.mode !== 1) this.bytes.fill(0, op.offset, end);
        if (!keepSize) this.size = Math.max(this.size, end);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  #truncate(size: number): void {
    if (size < this.size) this.bytes.fill(0, size, this.size);
    this.size = size;
  }
}

// ---------------------------------------------------------------- compare

interface Range {
  start: number;
  end: number;
}

/** What `op` may have changed, given the sizes before and after it. */
function touched(op: FsxOp, before: number, after: number): Range[] {
  const ranges: Range[] = [];
  const add = (start: number, end: number): void => {
    const s = Math.max(0, start);
    const e = Math.min(after, end);
    if (e > s) ranges.push({ start: s, end: e });
  };
  switch (op.kind) {
    case "write":
    case "mmap":
      add(op.offset, op.offset + op.length);
      if (op.offset > before) add(before, op.offset);
      break;
    case "copy":
      add(op.dst, op.dst + op.length);
      if (op.dst > before) add(before, op.dst);
      break;
    case "fallocate":
      add(op.offset, op.offset + op.length);
      break;
    default:
      break;
  }
  // A new end, and whatever a grow exposed.
  if (after !== before) add(Math.min(before, after) - 4096, Math.min(before, after) + 4096);
  if (after > before) add(before, after);
  return ranges;
}

const SAMPLE_ABOVE = 16 * 1024;

/** Sampled pieces of a long range: head, tail, every chunk boundary, one random window. */
function sample(range: Range, rng: Random): Range[] {
  if (range.end - range.start <= SAMPLE_ABOVE) return [range];
  const pieces: Range[] = [
    { start: range.start, end: range.start + 4096 },
    { start: range.end - 4096, end: range.end },
  ];
  for (let at = Math.ceil(range.start / CHUNK_SIZE) * CHUNK_SIZE; at < range.end; at += CHUNK_SIZE) {
    pieces.push({ start: at, end: Math.min(range.end, at + 4096) });
  }
  const window = rng.int(range.end - range.start - SAMPLE_ABOVE + 1) + range.start;
  pieces.push({ start: window, end: window + SAMPLE_ABOVE });
  return pieces;
}

function fnv1a(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Native byte equality where there is one (Node's and nodejs_compat's Buffer); a plain loop finds where. */
const NativeBuffer = (globalThis as { Buffer?: { compare(a: Uint8Array, b: Uint8Array): number } }).Buffer;

/** Undefined when equal; else where and how they differ. */
function difference(actual: Uint8Array, expected: Uint8Array, start: number): string | undefined {
  if (NativeBuffer !== undefined && NativeBuffer.compare(actual, expected) === 0) return undefined;
  const length = Math.min(actual.length, expected.length);
  let first = -1;
  for (let i = 0; i < length; i++) {
    if (actual[i] !== expected[i]) {
      first = i;
      break;
    }
  }
  if (first < 0 && actual.length === expected.length) return undefined;
  if (first < 0) first = length;
  const end = start + expected.length;
  return (
    `bytes [${start}, ${end}) differ: fnv1a ${fnv1a(actual)} vs model ${fnv1a(expected)}; ` +
    `first difference at offset ${start + first} (0x${(start + first).toString(16)}, chunk ${Math.floor((start + first) / CHUNK_SIZE)}): ` +
    `got ${actual[first] ?? "EOF"}, expected ${expected[first] ?? "EOF"}`
  );
}

class Comparer {
  comparedBytes = 0;
  readonly ms = Object.fromEntries([...Object.keys(WEIGHTS), "compare"].map((kind) => [kind, 0])) as Record<
    FsxKind | "compare",
    number
  >;
  readonly #rng: Random;
  constructor(seed: number) {
    this.#rng = mulberry32(seed ^ 0x5bd1e995);
  }

  async size(target: FsxTarget, model: FsxModel): Promise<string | undefined> {
    const size = await target.size();
    return size === model.size ? undefined : `size ${size}, model ${model.size}`;
  }

  async ranges(target: FsxTarget, model: FsxModel, ranges: Range[]): Promise<string | undefined> {
    for (const range of ranges) {
      for (const piece of sample(range, this.#rng)) {
        const actual = await target.read(piece.start, piece.end - piece.start);
        this.comparedBytes += actual.length;
        const diff = difference(actual, model.bytes.subarray(piece.start, piece.end), piece.start);
        if (diff !== undefined) return diff;
      }
    }
    return undefined;
  }

  async whole(target: FsxTarget, model: FsxModel): Promise<string | undefined> {
    await target.settle?.();
    const size = await this.size(target, model);
    if (size !== undefined) return size;
    const actual = await target.read(0, model.size);
    this.comparedBytes += actual.length;
    return difference(actual, model.bytes.subarray(0, model.size), 0);
  }

  async pulled(target: FsxTarget, model: FsxModel): Promise<string | undefined> {
    if (target.pulled === undefined) return undefined;
    const copy = await target.pulled();
    this.comparedBytes += copy.length;
    const diff = difference(copy, model.bytes.subarray(0, model.size), 0);
    return diff === undefined ? undefined : `the pulled copy: ${diff}`;
  }
}

interface Mismatch {
  index: number;
  detail: string;
}

/** Applies ops[i] to the model and the targets and compares; a mismatch says where. */
async function step(
  op: FsxOp,
  index: number,
  model: FsxModel,
  targets: FsxTarget[],
  comparer: Comparer,
  full: boolean,
): Promise<Mismatch | undefined> {
  const before = model.size;
  const data = model.apply(op);
  let started = performance.now();
  for (const target of targets) {
    try {
      await target.apply(op, data);
    } catch (error) {
      return { index, detail: `${target.name}: ${formatOp(op)} failed: ${(error as Error).message}` };
    }
  }
  comparer.ms[op.kind] += performance.now() - started;
  started = performance.now();
  const ranges = touched(op, before, model.size);
  for (const target of targets) {
    const detail =
      (await comparer.size(target, model)) ??
      (await comparer.ranges(target, model, ranges)) ??
      (full ? await comparer.whole(target, model) : undefined) ??
      (op.kind === "pull" ? await comparer.pulled(target, model) : undefined);
    if (detail !== undefined) return { index, detail: `${target.name}: ${detail}` };
  }
  comparer.ms.compare += performance.now() - started;
  return undefined;
}

/** Runs `ops` on fresh targets; the first mismatch, or undefined. */
async function replay(
  ops: readonly FsxOp[],
  open: FsxOpen,
  seed: number,
  fullEvery: number,
): Promise<Mismatch | undefined> {
  const targets = await open();
  const model = new FsxModel();
  const comparer = new Comparer(seed);
  let mismatch: Mismatch | undefined;
  for (let i = 0; i < ops.length && mismatch === undefined; i++) {
    const full = ops.length <= 64 || (i + 1) % fullEvery === 0 || i === ops.length - 1;
    mismatch = await step(ops[i] as FsxOp, i, model, targets, comparer, full);
  }
  // A target left broken by the mismatch may fail to close as well; the mismatch is the news.
  await closeAll(targets).catch(() => {});
  return mismatch;
}

/** Closes every target; the first failure is thrown after the rest (a replay's caller ignores it). */
async function closeAll(targets: FsxTarget[]): Promise<void> {
  let failure: unknown;
  for (const target of targets) await target.close().catch((error: unknown) => (failure ??= error));
  if (failure !== undefined) throw failure;
}

// ---------------------------------------------------------------- run and shrink

export async function runFsx(options: FsxRunOptions): Promise<FsxStats> {
  const { seed, open } = options;
  const fullEvery = options.fullEvery ?? 500;
  const weights = { ...WEIGHTS };
  for (const kind of options.skip ?? []) weights[kind] = 0;
  const rng = mulberry32(seed);
  const model = new FsxModel();
  const comparer = new Comparer(seed);
  const counts = Object.fromEntries(Object.keys(WEIGHTS).map((kind) => [kind, 0])) as Record<FsxKind, number>;
  const ops: FsxOp[] = [];
  let maxSize = 0;
  const started = Date.now();
  const targets = await open();
  let mismatch: Mismatch | undefined;
  try {
    for (let i = 0; i < options.ops && mismatch === undefined; i++) {
      const op = nextOp(rng, model.size, weights);
      ops.push(op);
      counts[op.kind]++;
      const full = (i + 1) % fullEvery === 0 || i === options.ops - 1;
      mismatch = await step(op, i, model, targets, comparer, full);
      maxSize = Math.max(maxSize, model.size);
    }
  } finally {
    const closing = closeAll(targets);
    await (mismatch === undefined ? closing : closing.catch(() => {}));
  }
  const ms = Date.now() - started;
  if (mismatch !== undefined) {
    const failing = ops.slice(0, mismatch.index + 1);
    const shrunk = await shrink(failing, open, seed, fullEvery, options.shrinkMs ?? 60_000);
    const lines = shrunk.ops.map((op, i) => `  ${String(i + 1).padStart(3)}. ${formatOp(op)}`);
    throw new FsxFailure(
      seed,
      mismatch.index,
      mismatch.detail,
      shrunk.ops,
      `fsx mismatch, seed ${seed}, op #${mismatch.index + 1} (${formatOp(failing.at(-1) as FsxOp)}): ${mismatch.detail}\n` +
        `rerun: FSX_SEED=${seed} FSX_OPS=${mismatch.index + 1}\n` +
        `shrunk to ${shrunk.ops.length} ops (${shrunk.replays} replays${shrunk.complete ? "" : ", stopped at the time limit"}); ` +
        `it fails with: ${shrunk.detail}\n${lines.join("\n")}\n` +
        `as JSON: ${JSON.stringify(shrunk.ops)}`,
    );
  }
  return {
    seed,
    ops: ops.length,
    ms,
    opsPerSecond: Math.round((ops.length / Math.max(1, ms)) * 1000),
    counts,
    msByKind: Object.fromEntries(Object.entries(comparer.ms).map(([kind, ms]) => [kind, Math.round(ms)])) as Record<
      FsxKind | "compare",
      number
    >,
    maxSize,
    comparedBytes: comparer.comparedBytes,
  };
}

/**
 * The shortest failing suffix first (a bug usually needs the last few ops and
 * some state before them), then delta debugging: remove runs of ops, halving
 * the run length down to single ops, keeping any removal that still fails.
 */
async function shrink(
  failing: FsxOp[],
  open: FsxOpen,
  seed: number,
  fullEvery: number,
  budgetMs: number,
): Promise<{ ops: FsxOp[]; detail: string; replays: number; complete: boolean }> {
  const deadline = Date.now() + budgetMs;
  let replays = 0;
  let best = failing;
  let detail = "(not replayed)";
  const fails = async (candidate: FsxOp[]): Promise<boolean> => {
    replays++;
    const mismatch = await replay(candidate, open, seed, fullEvery);
    if (mismatch === undefined) return false;
    // A failure before the last op means the ops after it are not needed.
    best = candidate.slice(0, mismatch.index + 1);
    detail = mismatch.detail;
    return true;
  };
  if (!(await fails(best))) return { ops: best, detail: "did not fail again on replay", replays, complete: true };
  for (let keep = 1; keep < best.length && Date.now() < deadline; keep *= 2) {
    if (await fails(best.slice(best.length - keep))) break;
  }
  for (let run = Math.max(1, Math.floor(best.length / 2)); run >= 1 && Date.now() < deadline; ) {
    let removed = false;
    for (let start = 0; start < best.length && Date.now() < deadline; ) {
      const candidate = [...best.slice(0, start), ...best.slice(start + run)];
      if (candidate.length > 0 && (await fails(candidate))) removed = true;
      else start += run;
    }
    if (!removed) run = Math.floor(run / 2);
  }
  return { ops: best, detail, replays, complete: Date.now() < deadline };
}

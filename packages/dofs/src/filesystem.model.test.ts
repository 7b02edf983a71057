/**
 * Model-based test: thousands of seeded random operations run against both the
 * real WorkspaceFilesystem and the in-memory oracle in test/model.ts; after
 * every operation the outcomes (value or error code) must agree, and every
 * TREE_EVERY operations so must the whole tree (types, modes, sizes, link
 * targets, bytes, and mtimes under a clock that ticks once per operation).
 *
 * The namespace is tiny (a few names under /w, depth ≤ 3) so collisions, type
 * conflicts and symlink loops are frequent. Invalid inputs are mixed in, at
 * most one invalid argument per operation so the expected error is unambiguous.
 *
 * Knobs: DOFS_MODEL_SEEDS=n runs seeds 1..n, DOFS_MODEL_SEED=k only seed k,
 * DOFS_MODEL_OPS=n ops per seed, DOFS_MODEL_SKIP=rename,grep leaves methods out
 * (handy while triaging). workerd has no process environment: it sees them only
 * when the vitest project forwards them through `test.env`.
 */

import { describe, it } from "vitest";
import { withFs } from "#harness";
import { drain, FsModel } from "../test/model.js";

// Node reads the shell's environment; workerd has none, so fall back to vitest's import.meta.env.
const env: Record<string, string | undefined> = {
  ...(import.meta as { env?: Record<string, string | undefined> }).env,
  ...(globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env,
};
const count = (name: string, fallback: number): number => Number(env[name] || fallback);
const SEEDS = env.DOFS_MODEL_SEED
  ? [count("DOFS_MODEL_SEED", 1)]
  : Array.from({ length: count("DOFS_MODEL_SEEDS", 20) }, (_, i) => i + 1);
const OPS = count("DOFS_MODEL_OPS", 400);
const SKIP = new Set((env.DOFS_MODEL_SKIP ?? "").split(",").filter(Boolean));
const TREE_EVERY = 50;
const HISTORY = 10;
/** The clock starts here and moves 1 s before every op, so mtimes say which op touched a node. */
const EPOCH = 1_700_000_000_000;
const CHUNK = 524_288;

// ---------------------------------------------------------------- generator

/** mulberry32: tiny, fast, and good enough to spread choices. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stream argument is kept as bytes plus cut points so each side gets its own fresh stream. */
class StreamArg {
  constructor(
    readonly bytes: Uint8Array,
    readonly cuts: number[],
    /** Errors the stream after this many pieces: the write must fail and change nothing. */
    readonly failAt?: number,
  ) {}
  open(): ReadableStream<Uint8Array> {
    const bounds = [0, ...this.cuts, this.bytes.length];
    let i = 0;
    return new ReadableStream({
      pull: (controller) => {
        if (i === this.failAt) return controller.error(new Error("stream failed"));
        if (i + 1 >= bounds.length) return controller.close();
        controller.enqueue(this.bytes.slice(bounds[i], bounds[i + 1]));
        i++;
      },
    });
  }
}

interface Op {
  method: string;
  args: unknown[];
}

class Generator {
  constructor(
    private readonly rand: () => number,
    /** What exists now, so a good share of ops hit real nodes instead of ENOENT. */
    private readonly existing: () => { path: string; type: string }[],
  ) {}
  chance = (p: number): boolean => this.rand() < p;
  int = (lo: number, hi: number): number => lo + Math.floor(this.rand() * (hi - lo + 1));
  pick = <T>(items: readonly T[]): T => items[Math.floor(this.rand() * items.length)] as T;

  // "a" and "b" dominate so paths collide; "a.b" sorts between "a" and "a/…" differently by
  // segment and by whole path (ls sorts by path, find walks by name).
  // Rarely: names whose UTF-8 byte order differs from UTF-16 order ("～" vs "😀"), a backslash, a space.
  name = (): string =>
    this.chance(0.04)
      ? this.pick(["é", "～", "😀", "a\\b", " x"])
      : this.pick(["a", "a", "a", "b", "b", "b", "c", "c", "d", "a.b"]);

  validPath(): string {
    const r = this.rand();
    if (r < 0.03) return "/";
    if (r < 0.07) return "/w";
    if (r < 0.1) return `/${this.name()}`;
    return `/w/${Array.from({ length: this.int(1, 3) }, this.name).join("/")}`;
  }

  /** The same path spelled differently (`docs/dofs.md`); the result must not change. */
  decorate(path: string): string {
    if (!this.chance(0.15)) return path;
    switch (this.int(0, 3)) {
      case 0:
        return `${path}/`;
      case 1:
        return path.replace("/", "//");
      case 2:
        return path.replace(/\/([^/]*)$/, "/./$1");
      default:
        return path.replace(/^\/w\b/, `/w/${this.name()}/..`);
    }
  }

  invalidPath = (): string =>
    this.pick(["", "w/a", "a", ".", "/w/a\0", "/w/\0/b", "/..", "/w/../..", "/../w", "./w/a"]);

  /** Readers mostly aim at what exists, creators mostly at a new name in an existing dir. */
  path(aim: "read" | "create" = "read"): string {
    if (this.chance(0.04)) return this.invalidPath();
    const r = this.rand();
    const nodes = this.existing();
    const dirs = nodes.filter((n) => n.type === "dir");
    const [old, fresh] = aim === "read" ? [0.45, 0.6] : [0.15, 0.55];
    if (r < old && nodes.length > 0) return this.decorate(this.pick(nodes).path);
    if (r < fresh && dirs.length > 0) return this.decorate(`${this.pick(dirs).path}/${this.name()}`);
    return this.decorate(this.validPath());
  }

  target(): string {
    switch (this.int(0, 7)) {
      case 0:
      case 1:
        return this.validPath();
      case 2:
        return this.name();
      case 3:
        return `../${this.name()}`;
      case 4:
        return `${this.name()}/${this.name()}`;
      case 5:
        return this.pick([".", "..", "../..", "../../../../a", "/", "./a/", "/w//b/./c", "é/😀", "～"]);
      case 6:
        return `../../${this.name()}`;
      default:
        return `/w/${this.name()}/`;
    }
  }

  bytes(): Uint8Array {
    // Newlines for grep, a multi-byte character, a lone 0xff for lenient utf8 decoding.
    const alphabet = [0x61, 0x62, 0x41, 0x0a, 0x0a, 0x2e, 0x28, 0xc3, 0xa9, 0xff, 0x20];
    // A NUL now and then makes a binary file, which grep skips.
    return Uint8Array.from({ length: this.int(0, 24) }, () => (this.chance(0.01) ? 0 : this.pick(alphabet)));
  }

  /** Around one chunk or more, with "é" split across the 512 KiB boundary (lenient decode, grep). */
  big(): Uint8Array {
    const size = this.pick([CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 3]);
    const line = new TextEncoder().encode(this.pick(["ab é AB\n", "a.b\n(a)|b\n", "x\r\n"]));
    const bytes = Uint8Array.from({ length: size }, (_, i) => line[i % line.length] as number);
    if (size > CHUNK) bytes.set([0xc3, 0xa9], CHUNK - 1);
    return bytes;
  }

  data(): string | Uint8Array | StreamArg {
    if (this.chance(0.015))
      return this.chance(0.5) ? this.big() : new StreamArg(this.big(), [1000, CHUNK - 7, CHUNK + 9]);
    const r = this.rand();
    if (r < 0.5) {
      const lines = ["a", "b", "ab", "AB", "a.b", "(a)|b", "héllo", "", "x\r", "Ab a"];
      return Array.from({ length: this.int(0, 5) }, () => this.pick(lines)).join("\n") + (this.chance(0.3) ? "\n" : "");
    }
    const bytes = this.bytes();
    if (r < 0.8) return bytes;
    const cuts = [...new Set(Array.from({ length: this.int(0, 3) }, () => this.int(0, bytes.length)))].sort(
      (x, y) => x - y,
    );
    return new StreamArg(bytes, cuts, this.chance(0.15) ? this.int(0, cuts.length) : undefined);
  }

  mode = (): number => this.pick([0o600, 0o644, 0o755, 0o700, 0o100644, 0o17777, 0o4755]);

  /** limit/offset; sometimes invalid (only when `valid` is false). */
  page(valid: boolean): { limit?: number; offset?: number } | undefined {
    if (!valid)
      return this.pick([{ limit: -1 }, { offset: -1 }, { limit: 1.5 }, { offset: Number.NaN }, { limit: Number.NaN }]);
    if (this.chance(0.6)) return undefined;
    const page: { limit?: number; offset?: number } = {};
    if (this.chance(0.6)) page.limit = this.int(1, 4);
    if (this.chance(0.6)) page.offset = this.int(0, 4);
    return page;
  }

  glob = (): string | undefined =>
    this.pick([
      undefined,
      "",
      "*",
      "**",
      "**/a",
      "a*",
      "*.b",
      "?",
      "**/b/*",
      "a/**",
      "[a].b",
      "a/*/c",
      "**/*",
      "a",
      "?/?",
      "**/a/**",
      "a.b",
      "a?b",
      "**/?",
      "*😀*",
    ]);

  op(): Op {
    for (;;) {
      const op = this.anyOp();
      if (!SKIP.has(op.method)) return op;
    }
  }

  private anyOp(): Op {
    const bad = this.chance(0.05); // one invalid option, path kept valid
    const r = this.rand() * 100;
    const path = bad ? this.decorate(this.validPath()) : this.path(r < 41 ? "create" : "read");
    if (bad && r < 41) {
      // Spec-silent, the implementation's choice: a bad mode or symlink target is EINVAL.
      const mode = this.pick([-1, 1.5, Number.NaN]);
      if (r < 22) return { method: "writeFile", args: [path, this.data(), { mode }] };
      if (r < 32) return { method: "mkdir", args: [path, { mode }] };
      return { method: "symlink", args: [this.pick(["", "a\0b"]), path] };
    }
    if (bad && r < 59 && r >= 55) return { method: "chmod", args: [path, this.pick([-1, 1.5, Number.NaN])] };
    if (r < 22) {
      const options = this.pick([
        undefined,
        {},
        { mode: this.mode() },
        { exclusive: true },
        { mode: this.mode(), exclusive: this.chance(0.5) },
      ]);
      return { method: "writeFile", args: options ? [path, this.data(), options] : [path, this.data()] };
    }
    if (r < 32)
      return {
        method: "mkdir",
        args: [
          path,
          this.pick([undefined, { recursive: true }, { mode: this.mode() }, { recursive: true, mode: this.mode() }]),
        ],
      };
    if (r < 41) return { method: "symlink", args: [this.target(), path] };
    if (r < 48)
      return {
        method: "rm",
        args: [path, this.pick([undefined, { recursive: true }, { force: true }, { recursive: true, force: true }])],
      };
    if (r < 55) return { method: "rename", args: [path, this.path(this.chance(0.5) ? "create" : "read")] };
    if (r < 59) return { method: "chmod", args: [path, this.mode()] };
    if (r < 69) {
      if (bad)
        return {
          method: "readFile",
          args: [
            path,
            this.pick([{ byteOffset: -1 }, { byteLength: -1 }, { byteOffset: 1.5 }, { byteOffset: Number.NaN }]),
          ],
        };
      const range = (): { byteOffset?: number; byteLength?: number; encoding?: "utf8" } => {
        const o: { byteOffset?: number; byteLength?: number; encoding?: "utf8" } = {};
        if (this.chance(0.7)) o.byteOffset = this.chance(0.1) ? this.int(CHUNK - 3, CHUNK + 3) : this.int(0, 30);
        if (this.chance(0.7)) o.byteLength = this.chance(0.1) ? CHUNK + 5 : this.int(0, 10);
        if (this.chance(0.5)) o.encoding = "utf8";
        return o;
      };
      return { method: "readFile", args: [path, this.pick([undefined, "utf8", "utf8", range()])] };
    }
    if (r < 73) return { method: "stat", args: [path] };
    if (r < 77) return { method: "lstat", args: [path] };
    if (r < 80) return { method: "readlink", args: [path] };
    if (r < 85) return { method: "readdir", args: [path, this.page(!bad)] };
    if (r < 89) return { method: "find", args: [path, this.glob(), this.page(!bad)] };
    if (r < 92) return { method: "ls", args: [path] };
    if (r < 93) return { method: "readAcross", args: [path, this.data()] };
    if (r < 94) return { method: "gc", args: [this.pick([{}, { safetyWindowMs: 0 }])] };
    const literal = this.pick(["a", "A", "b", "ab", ".", "(", "é", "x\r", "a.b", "|"]);
    const regex = this.pick(["a.", "^a", "b$", "a|B", "^$", "\\.", "[ab]+", "é"]);
    const options: Record<string, unknown> = {};
    let pattern = literal;
    if (this.chance(0.4)) {
      options.regex = true;
      pattern = regex;
    }
    if (this.chance(0.3)) options.ignoreCase = true;
    if (this.chance(0.3)) options.context = this.int(0, 2);
    if (this.chance(0.2)) options.include = this.glob();
    Object.assign(options, this.page(true));
    if (bad) {
      const kind = this.int(0, 2);
      if (kind === 0) {
        options.regex = true;
        pattern = this.pick(["(", "[", "a{2,1}"]);
      } else if (kind === 1) options.context = -1;
      else Object.assign(options, this.page(false));
    }
    return { method: "grep", args: [pattern, path, options] };
  }
}

// ---------------------------------------------------------------- running

type Call = (...args: unknown[]) => Promise<unknown>;
/** The real fs or the model, called by method name. */
interface Target {
  [method: string]: Call | undefined;
  readFile: Call;
  writeFile: Call;
  lstat: Call;
  readdir: Call;
  readlink: Call;
  /** Only the real fs has blobs to collect. */
  gc?: Call;
}
type Outcome = { ok: unknown } | { error: string };

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Small contents verbatim; big ones as length plus FNV-1a, to keep failure messages readable. */
function digest(bytes: Uint8Array): string {
  if (bytes.length <= 256) return `bytes:${hex(bytes)}`;
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return `bytes:${bytes.length}:fnv ${h.toString(16)}:${hex(bytes.subarray(0, 16))}…`;
}

async function bytesOf(value: unknown): Promise<string> {
  if (value instanceof ReadableStream) return digest(await drain(value));
  if (value instanceof Uint8Array) return digest(value);
  if (typeof value === "string" && value.length > 256) return `string:${digest(new TextEncoder().encode(value))}`;
  return JSON.stringify(value);
}

const pickStat = (s: Record<string, unknown>) => ({
  name: s.name,
  mode: s.mode,
  mtime: s.mtime,
  size: s.size,
  isFile: s.isFile,
  isDirectory: s.isDirectory,
  isSymbolicLink: s.isSymbolicLink,
});

async function normalize(method: string, value: unknown): Promise<unknown> {
  switch (method) {
    case "readFile":
      return bytesOf(value);
    case "stat":
    case "lstat":
      return pickStat(value as Record<string, unknown>);
    case "readdir":
      return (value as Record<string, unknown>[]).map((e) => ({ ...pickStat(e), parentPath: e.parentPath }));
    default:
      return value ?? null;
  }
}

/** An error as comparable text: its code, or TypeError; anything else is an unexpected crash. */
function describeError(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof e?.code === "string") return e.name === "WorkspaceFsError" ? e.code : `${e.code} (name ${String(e.name)})`;
  if (error instanceof TypeError) return "TypeError";
  return `crash ${String(e?.name)}: ${String(e?.message)}`;
}

/** Steps that are not one fs call. The model has no blobs, so gc is a no-op there. */
const pseudo: Record<string, (target: Target, ...args: unknown[]) => Promise<unknown>> = {
  /** The chunk list is captured when the stream opens; an overwrite (and a default gc) can't tear it. */
  async readAcross(target, path, data) {
    const stream = await target.readFile(path);
    let wrote = "ok";
    try {
      await target.writeFile(path, data);
      if (target.gc) await target.gc();
    } catch (error) {
      wrote = describeError(error);
    }
    return [await bytesOf(stream), wrote];
  },
  /** gc must never free what a file still references (`docs/dofs.md`), even with a zero window. */
  async gc(target, options) {
    if (target.gc) await target.gc(options);
    return null;
  },
};

async function run(target: Target, op: Op): Promise<Outcome> {
  const args = op.args.map((a) => (a instanceof StreamArg ? a.open() : a instanceof Uint8Array ? a.slice() : a));
  try {
    const step = pseudo[op.method];
    if (step) return { ok: await step(target, ...args) };
    const method = target[op.method];
    if (typeof method !== "function") throw new Error(`no method ${op.method}`);
    return { ok: await normalize(op.method, await method.apply(target, args)) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

/** One line per node, pre-order: path, lstat fields, readdir fields, link target or content. */
async function snapshot(fs: Target): Promise<string[]> {
  const lines: string[] = [];
  const root = (await fs.lstat("/")) as Record<string, unknown>;
  lines.push(`/ ${JSON.stringify(pickStat(root))}`);
  const visit = async (dir: string): Promise<void> => {
    const entries: Record<string, unknown>[] = [];
    for (;;) {
      const page = (await fs.readdir(dir, { limit: 100, offset: entries.length })) as Record<string, unknown>[];
      entries.push(...page);
      if (page.length < 100) break;
    }
    for (const entry of entries) {
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      const stat = pickStat((await fs.lstat(path)) as Record<string, unknown>);
      let line = `${path} ${JSON.stringify(stat)} ${JSON.stringify(pickStat(entry))}`;
      if (stat.isSymbolicLink) line += ` -> ${JSON.stringify(await fs.readlink(path))}`;
      if (stat.isFile) line += ` ${await bytesOf(await fs.readFile(path))}`;
      lines.push(line);
      if (stat.isDirectory) await visit(path);
    }
  };
  await visit("/");
  return lines;
}

function format(op: Op): string {
  const arg = (a: unknown, octal = false): string => {
    if (a === undefined) return "undefined";
    if (typeof a === "number") return octal ? `0o${a.toString(8)}` : String(a);
    if (a instanceof StreamArg) {
      const fail = a.failAt === undefined ? "" : `, failing after piece ${a.failAt}`;
      return `streamOf(${digest(a.bytes)}, cuts ${JSON.stringify(a.cuts)}${fail})`;
    }
    if (a instanceof Uint8Array && a.length > 256) return digest(a);
    if (a instanceof Uint8Array) return `bytes(hex "${hex(a)}")`;
    if (a !== null && typeof a === "object")
      return `{ ${Object.entries(a)
        .map(([k, v]) => `${k}: ${arg(v, k === "mode")}`)
        .join(", ")} }`;
    return JSON.stringify(a);
  };
  return `fs.${op.method}(${op.args.map((a, i) => arg(a, op.method === "chmod" && i === 1)).join(", ")})`;
}

function failure(seed: number, index: number, history: Op[], detail: string): Error {
  const start = Math.max(0, history.length - HISTORY);
  const recent = history.slice(start).map((op, i) => `  #${start + i} ${format(op)}`);
  return new Error(
    `model mismatch: seed ${seed}, op #${index}\nlast ops:\n${recent.join("\n")}\n${detail}\nrerun: DOFS_MODEL_SEED=${seed}`,
  );
}

async function compareTrees(fs: Target, model: Target, seed: number, index: number, history: Op[]): Promise<void> {
  const [actual, expected] = [await snapshot(fs), await snapshot(model)];
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    if (actual[i] !== expected[i])
      throw failure(
        seed,
        index,
        history,
        `tree differs at line ${i}\n  expected: ${expected[i]}\n  actual:   ${actual[i]}`,
      );
  }
}

describe("WorkspaceFilesystem against the model (`docs/dofs.md`)", () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${OPS} random ops`, { timeout: 120_000 }, async () => {
      let t = EPOCH;
      const clock = (): number => t;
      await withFs(
        async ({ fs }) => {
          const real = fs as unknown as Target;
          const oracle = new FsModel(clock);
          const model = oracle as unknown as Target;
          const gen = new Generator(mulberry32(seed), () => oracle.paths());
          const history: Op[] = [{ method: "mkdir", args: ["/w"] }];
          await run(real, history[0] as Op);
          await run(model, history[0] as Op);
          for (let index = 1; index <= OPS; index++) {
            const op = gen.op();
            history.push(op);
            t += 1000;
            const [actual, expected] = [await run(real, op), await run(model, op)];
            if (JSON.stringify(actual) !== JSON.stringify(expected)) {
              throw failure(
                seed,
                index,
                history,
                `  expected: ${JSON.stringify(expected)}\n  actual:   ${JSON.stringify(actual)}`,
              );
            }
            if (index % TREE_EVERY === 0 || index === OPS) await compareTrees(real, model, seed, index, history);
          }
        },
        { now: clock },
      );
    });
  }
});

/**
 * Model test of `SQLiteWorkspaceProvider`'s byte-level writes: random
 * writeFile / writeRange / append / truncate / descriptor writes and reads
 * on a few files, around chunk boundaries, against a `Map` of byte arrays.
 * After every step each file's bytes (through the provider and through
 * `WorkspaceFilesystem`, one tree) equal the model's. Half the seeds use a
 * storage without a native sync hash, so the JavaScript SHA-256 writes.
 * `PROVIDER_MODEL_SEEDS` (default 30), `PROVIDER_MODEL_SEED=n` replays one.
 */
import { describe, expect, it } from "vitest";
import { mulberry32, type Random } from "../test/random.js";
import { CHUNK_SIZE } from "./constants.js";
import { Database } from "./database.js";
import { openNodeDatabase } from "./database.node.js";
import { WorkspaceFilesystem } from "./filesystem.js";
import { SQLiteWorkspaceProvider } from "./provider.js";
import { SQLiteTestStorage } from "./testing.node.js";

const SEEDS = Number(process.env.PROVIDER_MODEL_SEEDS ?? 30);
const ONLY = process.env.PROVIDER_MODEL_SEED === undefined ? undefined : Number(process.env.PROVIDER_MODEL_SEED);
const FILES = ["/w/a", "/w/b"];

function bytes(rng: Random, n: number): Uint8Array {
  const out = new Uint8Array(n);
  const seed = rng.int(256);
  for (let i = 0; i < n; i++) out[i] = (seed + i * 7) & 0xff;
  return out;
}

/** Offsets near 0, near a chunk boundary, or past the end. */
function offset(rng: Random, size: number): number {
  return rng.pick([
    0,
    rng.int(size + 1),
    CHUNK_SIZE - rng.range(0, 3),
    CHUNK_SIZE + rng.range(0, 3),
    size + rng.range(0, 5),
  ]);
}

function patched(old: Uint8Array, at: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.max(old.byteLength, at + data.byteLength));
  out.set(old);
  out.set(data, at);
  return out;
}

async function run(seed: number): Promise<void> {
  const rng = mulberry32(seed);
  const db = seed % 2 === 0 ? new Database(new SQLiteTestStorage()) : openNodeDatabase();
  const provider = new SQLiteWorkspaceProvider(db);
  const fs = new WorkspaceFilesystem(db);
  provider.mkdirSync("/w");
  const model = new Map<string, Uint8Array>();
  const log: string[] = [];
  for (let step = 0; step < 25; step++) {
    const path = rng.pick(FILES);
    const old = model.get(path);
    const size = old?.byteLength ?? 0;
    const op = rng.weighted({ write: 2, range: 4, append: 2, truncate: 2, fd: 2, unlink: 1 });
    const n = rng.pick([0, 1, 5, rng.range(1, 40)]);
    if (op === "write") {
      const data = bytes(rng, n);
      log.push(`writeFileSync ${path} ${n}`);
      provider.writeFileSync(path, data);
      model.set(path, data);
    } else if (op === "range" || op === "fd") {
      const at = offset(rng, size);
      const data = bytes(rng, n);
      if (op === "range") {
        log.push(`writeRangeSync ${path} @${at} ${n}`);
        provider.writeRangeSync(path, data, at);
      } else {
        log.push(`open r+/w ${path}, writeSync @${at} ${n}`);
        const fd = provider.openSync(path, old === undefined ? "w" : "r+");
        expect(provider.writeSync(fd, data, 0, n, at)).toBe(n);
        provider.closeSync(fd);
      }
      model.set(path, patched(old ?? new Uint8Array(0), at, data));
    } else if (op === "append") {
      const data = bytes(rng, n);
      log.push(`appendFileSync ${path} ${n}`);
      provider.appendFileSync(path, data);
      model.set(path, patched(old ?? new Uint8Array(0), size, data));
    } else if (op === "truncate") {
      if (old === undefined) continue;
      const len = offset(rng, size);
      log.push(`truncateSync ${path} ${len}`);
      provider.truncateSync(path, len);
      const next = new Uint8Array(len);
      next.set(old.subarray(0, Math.min(len, size)));
      model.set(path, next);
    } else {
      if (old === undefined) continue;
      log.push(`unlinkSync ${path}`);
      provider.unlinkSync(path);
      model.delete(path);
    }
    for (const file of FILES) {
      const want = model.get(file);
      const where = `seed ${seed}, after:\n${log.join("\n")}\nfile ${file}`;
      expect(provider.existsSync(file), where).toBe(want !== undefined);
      if (want === undefined) continue;
      expect(provider.statSync(file).size, where).toBe(want.byteLength);
      const got = provider.readFileSync(file) as Uint8Array;
      expect(Buffer.compare(Buffer.from(got), Buffer.from(want)), where).toBe(0);
      const viaFs = await fs.readFileBytes(file);
      expect(Buffer.compare(Buffer.from(viaFs), Buffer.from(want)), where).toBe(0);
      const at = offset(rng, want.byteLength);
      const slice = provider.readRangeSync(file, at, 9);
      expect(Buffer.compare(Buffer.from(slice), Buffer.from(want.subarray(at, at + 9))), where).toBe(0);
    }
  }
}

describe("SQLiteWorkspaceProvider byte writes (model)", () => {
  const seeds = ONLY === undefined ? Array.from({ length: SEEDS }, (_, i) => i + 1) : [ONLY];
  it(`${seeds.length} seeds`, async () => {
    for (const seed of seeds) await run(seed);
  }, 300_000);
});

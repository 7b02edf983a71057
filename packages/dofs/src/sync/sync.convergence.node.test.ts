/**
 * Seeded convergence fuzz (`docs/sync.md`): random edits on both
 * peers — conflicting on purpose, over a three-letter alphabet at depth ≤ 3 —
 * interleaved with random sync steps (whole and tiny-budget batches). After a
 * settling round the two trees must be identical and one more tick must move
 * nothing. Which side wins a conflict is not checked, only that both agree.
 *
 * CI runs `SYNC_FUZZ_SEEDS` seeds (default 300) from `SYNC_FUZZ_FIRST_SEED`
 * (default 1); `SYNC_FUZZ_SEED=n` replays one seed, `SYNC_FUZZ_TRACE=file`
 * appends its log to a file as it runs. A failure prints the seed and the
 * operation log.
 */
import { appendFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { snapshotTree } from "../../test/peers.js";
import { bigContent, mulberry32, type Random } from "../../test/random.js";
import { CHUNK_SIZE } from "../constants.js";
import type { Database } from "../database.js";
import { openNodeDatabase } from "../database.node.js";
import { isFsError } from "../errors.js";
import { WorkspaceFilesystem } from "../filesystem.js";
import type { FoundEntry } from "../types.js";
import type { SyncLocal } from "./local.js";
import { SyncPeer } from "./peer.js";
import { pullBatch, pullOnce } from "./pull.js";
import { pushBatch, pushOnce } from "./push.js";
import { tick } from "./reconcile.js";

const SEEDS = Number(process.env.SYNC_FUZZ_SEEDS ?? 300);
const FIRST_SEED = Number(process.env.SYNC_FUZZ_FIRST_SEED ?? 1);
const ONLY_SEED = process.env.SYNC_FUZZ_SEED === undefined ? undefined : Number(process.env.SYNC_FUZZ_SEED);

/** A file to append the op log to as it happens (a hang shows where it stopped). */
const TRACE = process.env.SYNC_FUZZ_TRACE;
const NAMES = ["a", "b", "c"];
const MODES = [0o755, 0o700, 0o644, 0o600];

interface Side {
  name: "L" | "R";
  fs: WorkspaceFilesystem;
}

function randomPath(rng: Random): string {
  const depth = rng.range(1, 3);
  return `/${Array.from({ length: depth }, () => rng.pick(NAMES)).join("/")}`;
}

function symlinkTarget(rng: Random, path: string): string {
  switch (rng.int(7)) {
    case 0:
      return randomPath(rng); // absolute
    case 1:
      return randomPath(rng).slice(1); // relative
    case 2:
      return `../${rng.pick(NAMES)}`;
    case 3:
      return "zz/dangling";
    case 4:
      return path; // a loop through itself
    case 5:
      return ".";
    default:
      return path.slice(path.lastIndexOf("/") + 1); // relative loop
  }
}

/** One random edit on `side`. Refusals (EEXIST, ENOTDIR, ...) are expected and logged; anything else fails the seed. */
async function randomOp(rng: Random, side: Side, other: Side, log: string[]): Promise<void> {
  const { fs } = side;
  const entries = await fs.find("/");
  const existing = (type?: string): string | undefined => {
    const pool = type === undefined ? entries : entries.filter((e) => e.type === type);
    return pool.length === 0 ? undefined : rng.pick(pool).path;
  };
  const somePath = (): string => (rng.chance(0.7) ? existing() : undefined) ?? randomPath(rng);
  const text = (): string => `t${rng.int(6)}`;
  const kind = rng.weighted({
    write: 20,
    big: 3,
    overwrite: 8,
    mkdir: 10,
    rm: 8,
    rename: 10,
    symlink: 8,
    shadow: 5,
    chmod: 6,
    retype: 6,
    link: 5,
  });
  let what = kind as string;
  const run = async (description: string, body: () => Promise<void>): Promise<void> => {
    what = description;
    await body();
  };
  try {
    switch (kind) {
      case "write": {
        const path = randomPath(rng);
        const data = text();
        await run(`write ${path} ${data}`, () => fs.writeFile(path, data));
        break;
      }
      case "big": {
        const path = somePath();
        const { bytes, label } = bigContent(rng);
        await run(`write ${path} ${label}`, () => fs.writeFile(path, bytes));
        break;
      }
      case "overwrite": {
        const path = existing("file") ?? randomPath(rng);
        const data = text();
        await run(`overwrite ${path} ${data}`, () => fs.writeFile(path, data));
        break;
      }
      case "mkdir": {
        const path = randomPath(rng);
        await run(`mkdir -p ${path}`, () => fs.mkdir(path, { recursive: true }));
        break;
      }
      case "rm": {
        const path = somePath();
        await run(`rm -r ${path}`, () => fs.rm(path, { recursive: true, force: true }));
        break;
      }
      case "rename": {
        const from = existing() ?? randomPath(rng);
        const to = rng.chance(0.4) ? somePath() : randomPath(rng);
        await run(`rename ${from} ${to}`, () => fs.rename(from, to));
        break;
      }
      case "symlink": {
        const path = randomPath(rng);
        const target = symlinkTarget(rng, path);
        await run(`symlink ${path} -> ${target}`, () => fs.symlink(target, path));
        break;
      }
      case "shadow": {
        // A name that is a symlink on the other side becomes a directory here.
        const links = (await other.fs.find("/")).filter((e) => (e as FoundEntry).type === "symlink");
        const link = links.length === 0 ? randomPath(rng) : rng.pick(links).path;
        const child = `${link}/${rng.pick(NAMES)}`;
        const data = text();
        const clear = rng.chance(0.5);
        await run(`shadow ${clear ? "rm -r, " : ""}write ${child} ${data}`, async () => {
          if (clear) await fs.rm(link, { recursive: true, force: true });
          if (clear) await fs.mkdir(link, { recursive: true });
          await fs.writeFile(child, data);
        });
        break;
      }
      case "chmod": {
        const path = somePath();
        const mode = rng.pick(MODES);
        await run(`chmod ${mode.toString(8)} ${path}`, () => fs.chmod(path, mode));
        break;
      }
      case "retype": {
        const path = somePath();
        const to = rng.pick(["file", "dir", "symlink"] as const);
        const target = symlinkTarget(rng, path);
        await run(`retype ${path} -> ${to}${to === "symlink" ? ` ${target}` : ""}`, async () => {
          await fs.rm(path, { recursive: true, force: true });
          if (to === "file") await fs.writeFile(path, text());
          else if (to === "dir") await fs.mkdir(`${path}/${rng.pick(NAMES)}`, { recursive: true });
          else await fs.symlink(target, path);
        });
        break;
      }
      case "link": {
        const from = existing("file") ?? randomPath(rng);
        const to = randomPath(rng);
        await run(`link ${from} ${to}`, () => fs.link(from, to));
        break;
      }
    }
    log.push(`${side.name} ${what}`);
  } catch (error) {
    if (!isFsError(error)) {
      log.push(`${side.name} ${what} !! ${String(error)}`);
      throw error;
    }
    log.push(`${side.name} ${what} → ${error.code}`);
  }
}

function randomBudget(rng: Random): { maxEntries: number; maxBytes: number } {
  return {
    maxEntries: rng.range(1, 5),
    maxBytes: rng.pick([1024, 4096, 64 * 1024, CHUNK_SIZE, 1024 * 1024]),
  };
}

async function randomSync(rng: Random, local: SyncLocal, remote: SyncPeer, log: string[]): Promise<void> {
  const kind = rng.weighted({ pull: 2, push: 2, tick: 2, pushBatch: 3, pullBatch: 3 });
  let what: string = kind;
  try {
    switch (kind) {
      case "pull":
        what += ` → ${(await pullOnce(local, remote)).applied}`;
        break;
      case "push":
        what += ` → ${await pushOnce(local, remote)}`;
        break;
      case "tick": {
        const { pulled, pushed } = await tick(local, remote);
        what += ` → pulled ${pulled.applied}, pushed ${pushed}`;
        break;
      }
      case "pushBatch": {
        const budget = randomBudget(rng);
        const r = await pushBatch(local, remote, budget);
        what += ` ${JSON.stringify(budget)} → ${r.status} ${r.entries} entries ${r.bytes} B`;
        break;
      }
      case "pullBatch": {
        const budget = randomBudget(rng);
        const r = await pullBatch(local, remote, budget);
        what += ` ${JSON.stringify(budget)} → ${r.status} ${r.entries} entries ${r.bytes} B`;
        break;
      }
    }
    log.push(`sync ${what}`);
  } catch (error) {
    log.push(`sync ${what} !! ${String(error)}`);
    throw error;
  }
}

function treeDiff(a: Record<string, string>, b: Record<string, string>): string[] {
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return paths.filter((p) => a[p] !== b[p]).map((p) => `${p}: L=${a[p] ?? "-"} R=${b[p] ?? "-"}`);
}

/**
 * Forgets every echo rev on both sides, so nothing but the receiver's
 * idempotence stops an entry from coming back (as when a cursor reset
 * cleared them, or a peer that keeps none, like the reference, is on the
 * other end).
 */
function forgetEchoes(...dbs: Database[]): void {
  for (const db of dbs) db.run("DELETE FROM _vfs_echo_revs");
}

async function runSeed(
  seed: number,
  idempotenceOnly = false,
): Promise<{ ops: number } | { error: unknown; log: string[] }> {
  const rng = mulberry32(seed);
  const log: string[] = [];
  if (TRACE) {
    // Mirror each line to the trace file as it is logged, so a hang shows where it stopped.
    const push = log.push.bind(log);
    log.push = (...lines: string[]) => {
      for (const line of lines) appendFileSync(TRACE, `${line}\n`);
      return push(...lines);
    };
  }
  let clock = 1_700_000_000_000;
  const now = () => (clock += 1000);
  const localDb = openNodeDatabase();
  const remoteDb = openNodeDatabase();
  try {
    const L: Side = { name: "L", fs: new WorkspaceFilesystem(localDb, { now }) };
    const R: Side = { name: "R", fs: new WorkspaceFilesystem(remoteDb, { now }) };
    const local: SyncLocal = { db: L.fs.db, now }; // `.db` creates the schema
    const remote = new SyncPeer(remoteDb, { now });
    const ops = rng.range(30, 60);
    const amnesia = () => {
      if (idempotenceOnly) forgetEchoes(L.fs.db, R.fs.db); // `.db` creates the schema
    };
    for (let i = 0; i < ops; i++) {
      if (rng.chance(0.3)) {
        amnesia();
        await randomSync(rng, local, remote, log);
      }
      const [side, other] = rng.chance(0.5) ? [L, R] : [R, L];
      await randomOp(rng, side, other, log);
    }
    if (idempotenceOnly) {
      // Two ticks carry each side's last changes over and their echoes back; the third must move nothing.
      for (let round = 1; round <= 3; round++) {
        amnesia();
        const { pulled, pushed } = await tick(local, remote);
        log.push(`settle tick ${round} → pulled ${pulled.applied}, pushed ${pushed}`);
        if (round === 3 && (pulled.applied !== 0 || pushed !== 0)) {
          throw new Error(`entries still circulate after two ticks: pulled ${pulled.applied}, pushed ${pushed}`);
        }
      }
    }
    // Settle: tick + push until a round moves nothing, at most 4 rounds.
    for (let round = 0; round < 4; round++) {
      amnesia();
      const { pulled, pushed } = await tick(local, remote);
      const again = await pushOnce(local, remote);
      log.push(`settle tick → pulled ${pulled.applied}, pushed ${pushed}; push → ${again}`);
      if (pulled.applied === 0 && pushed === 0 && again === 0) break;
    }
    const [lt, rt] = [await snapshotTree(L.fs), await snapshotTree(R.fs)];
    const diff = treeDiff(lt, rt);
    if (diff.length > 0) {
      const dump = (t: Record<string, string>) =>
        Object.entries(t)
          .map(([p, v]) => `    ${p} ${v}`)
          .join("\n");
      throw new Error(`trees differ:\n  ${diff.join("\n  ")}\n  L:\n${dump(lt)}\n  R:\n${dump(rt)}`);
    }
    amnesia();
    const last = await tick(local, remote);
    if (last.pulled.applied !== 0 || last.pushed !== 0) {
      throw new Error(`the tick after settling moved entries: ${JSON.stringify(last)}`);
    }
    return { ops };
  } catch (error) {
    return { error, log };
  } finally {
    localDb.close();
    remoteDb.close();
  }
}

describe.each([
  { mode: "echo revs kept", idempotenceOnly: false, count: SEEDS },
  // Issue 19 row 17: without echo revs, the receiver's idempotence alone stops an entry within two ticks.
  { mode: "idempotence only", idempotenceOnly: true, count: Math.ceil(SEEDS / 3) },
])("sync convergence fuzz ($mode)", ({ idempotenceOnly, count }) => {
  const seeds = ONLY_SEED !== undefined ? [ONLY_SEED] : Array.from({ length: count }, (_, i) => FIRST_SEED + i);
  it(`converges over ${seeds.length} seeds (${seeds[0]}..${seeds[seeds.length - 1]})`, async () => {
    const cpu = process.cpuUsage();
    const failures: { seed: number; error: unknown; log: string[] }[] = [];
    let ops = 0;
    for (const seed of seeds) {
      const outcome = await runSeed(seed, idempotenceOnly);
      if ("error" in outcome) failures.push({ seed, ...outcome });
      else ops += outcome.ops;
    }
    const { user, system } = process.cpuUsage(cpu);
    console.log(
      `sync convergence fuzz: ${seeds.length} seeds, ${ops} operations, ${((user + system) / 1e6).toFixed(1)} s CPU`,
    );
    if (failures.length > 0) {
      const first = failures[0] as (typeof failures)[number];
      const kinds = new Map<string, number[]>();
      for (const f of failures) {
        const key = String(f.error instanceof Error ? f.error.message : f.error).split("\n")[0] as string;
        kinds.set(key, [...(kinds.get(key) ?? []), f.seed]);
      }
      const summary = [...kinds].map(
        ([k, s]) => `  ${k} seeds ${s.slice(0, 12).join(", ")}${s.length > 12 ? ", ..." : ""}`,
      );
      const detail = first.error instanceof Error ? (first.error.stack ?? first.error.message) : String(first.error);
      expect.fail(
        [
          `${failures.length}/${seeds.length} seeds failed`,
          ...summary,
          "",
          `seed ${first.seed} (replay: SYNC_FUZZ_SEED=${first.seed}${idempotenceOnly ? ", idempotence only" : ""}):`,
          ...first.log,
          detail,
        ].join("\n"),
      );
    }
  }, 600_000);
});

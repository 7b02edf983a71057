/**
 * Randomized differential tests of the AI SDK tools (issue 19 row 12): random
 * text files paged through `read` with random caps, and random edits whose
 * result, diff and patch must match the original's. Each seed is printed;
 * set REPLAY_SEED to replay one.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as reference from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/tools/index.js";
import { fileState, normalize, type Side, workspaceOn, writeFiles } from "./tools-common.worker.js";

/** A small seeded PRNG (mulberry32): the same seed gives the same files and settings on both sides. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface PagingCase {
  path: string;
  settings: Record<string, unknown>;
  limit?: number;
}

/** Random text files (short and long lines, multi-byte characters, CR, blank lines) and read settings. */
function pagingCases(seed: number, count: number): { files: Record<string, string>; cases: PagingCase[] } {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const pieces = ["a", "bc", "é", "😀", " ", "\r", "xyz", "\t"];
  const files: Record<string, string> = {};
  const cases: PagingCase[] = [];
  for (let i = 0; i < count; i++) {
    const lineCount = Math.floor(next() * 12);
    const lines = Array.from({ length: lineCount }, () =>
      Array.from({ length: Math.floor(next() * (next() < 0.2 ? 30 : 6)) }, () => pick(pieces)).join(""),
    );
    const path = `/workspace/p${i}.txt`;
    files[path] = lines.join("\n") + (next() < 0.5 ? "\n" : "");
    const settings: Record<string, unknown> = {
      maxLines: 1 + Math.floor(next() * 5),
      maxBytes: 8 + Math.floor(next() * 40),
    };
    if (next() < 0.3) settings.includeLineNumbers = true;
    if (next() < 0.3)
      settings.lineTruncation =
        next() < 0.5 ? { bytes: 1 + Math.floor(next() * 8) } : { chars: 1 + Math.floor(next() * 5) };
    cases.push({ path, settings, ...(next() < 0.3 ? { limit: 1 + Math.floor(next() * 3) } : {}) });
  }
  return { files, cases };
}

/** Reads each file page by page, following nextOffset + nextByteOffset, with each package's read tool. */
async function pageThrough(side: Side, files: Record<string, string>, cases: PagingCase[]): Promise<unknown[][]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace = workspaceOn(side, state.storage);
    await writeFiles(workspace.fs, files, []);
    const results: unknown[][] = [];
    for (const { path, settings, limit } of cases) {
      const tool =
        side === "reference"
          ? reference.createReadTool({
              store: new reference.WorkspaceFileStore(workspace as unknown as reference.WorkspaceLike),
              ...settings,
            })
          : ours.createReadTool({ store: new ours.WorkspaceFileStore(workspace), ...settings });
      const execute = tool.execute as (input: unknown, options: unknown) => Promise<Record<string, unknown>>;
      const pages: unknown[] = [];
      let input: Record<string, unknown> = { path, ...(limit === undefined ? {} : { limit }) };
      for (let page = 0; page < 40; page++) {
        const output = await execute(input, { toolCallId: "page", messages: [] });
        pages.push(normalize(output));
        if (output.truncated !== true) break;
        input = { ...input, offset: output.nextOffset, byteOffset: output.nextByteOffset };
      }
      results.push(pages);
    }
    return results;
  });
}

/** Set to a printed seed to replay a failure. */
const REPLAY_SEED: number | undefined = undefined;

describe("differential: read paging over random files", () => {
  const seeds = REPLAY_SEED === undefined ? [1, Date.now() % 1_000_000] : [REPLAY_SEED];
  for (const seed of seeds) {
    it(`every page of every file matches the original's, following the continuations (seed ${seed})`, async () => {
      console.log(`read paging seed ${seed}`);
      const { files, cases } = pagingCases(seed, 40);
      const theirs = await pageThrough("reference", files, cases);
      const mine = await pageThrough("ours", files, cases);
      cases.forEach((pagingCase, i) => {
        const label = `seed ${seed} (set REPLAY_SEED to replay): ${JSON.stringify({ ...pagingCase, text: files[pagingCase.path] })}`;
        expect(mine[i], label).toEqual(theirs[i]);
      });
    });
  }
});

interface EditCase {
  path: string;
  edits: { oldText: string; newText: string }[];
}

/**
 * Random files of distinct lines and 1–3 disjoint edits of whole lines, with
 * or without their newline, replaced by new lines or nothing, at the start,
 * the middle and the unterminated end of a file. Distinct lines keep the
 * line diff unambiguous, so the original's diff and ours must agree exactly.
 */
function editCases(seed: number, count: number): { files: Record<string, string>; cases: EditCase[] } {
  const next = random(seed);
  const files: Record<string, string> = {};
  const cases: EditCase[] = [];
  let fresh = 0;
  for (let i = 0; i < count; i++) {
    const lineCount = 1 + Math.floor(next() * 30);
    const lines = Array.from({ length: lineCount }, (_, n) => `l${n + 1}`);
    const terminated = next() < 0.6;
    const path = `/workspace/e${i}.txt`;
    files[path] = lines.join("\n") + (terminated ? "\n" : "");
    const edits: EditCase["edits"] = [];
    let from = 0;
    for (let k = 0; k < 3 && from < lineCount; k++) {
      const start = from + Math.floor(next() * Math.min(lineCount - from, 12));
      const length = Math.min(1 + Math.floor(next() * 2), lineCount - start);
      const last = start + length === lineCount;
      const withNewline = (!last || terminated) && next() < 0.7;
      const oldText = lines.slice(start, start + length).join("\n") + (withNewline ? "\n" : "");
      const added = Array.from({ length: Math.floor(next() * 3) }, () => `n${++fresh}`);
      const newText = added.length === 0 ? "" : added.join("\n") + (withNewline ? "\n" : "");
      if (newText === "" && !withNewline && length === lineCount) continue;
      edits.push({ oldText, newText });
      from = start + length + 1;
      if (next() < 0.4) break;
    }
    if (edits.length > 0) cases.push({ path, edits });
  }
  return { files, cases };
}

async function editThrough(side: Side, files: Record<string, string>, cases: EditCase[]): Promise<unknown[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace = workspaceOn(side, state.storage);
    await writeFiles(workspace.fs, files, []);
    const tool =
      side === "reference"
        ? reference.createEditTool({
            store: new reference.WorkspaceFileStore(workspace as unknown as reference.WorkspaceLike),
          })
        : ours.createEditTool({ store: new ours.WorkspaceFileStore(workspace) });
    const execute = tool.execute as (input: unknown, options: unknown) => Promise<unknown>;
    const results: unknown[] = [];
    for (const { path, edits } of cases) {
      const output = await execute({ path, edits }, { toolCallId: "edit", messages: [] });
      results.push({ output: normalize(output), after: await fileState(workspace.fs, path) });
    }
    return results;
  });
}

describe("differential: edit diffs over random files and edits", () => {
  const seeds = REPLAY_SEED === undefined ? [1, Date.now() % 1_000_000] : [REPLAY_SEED];
  for (const seed of seeds) {
    it(`the result, diff, patch and file match the original's (seed ${seed})`, async () => {
      console.log(`edit diff seed ${seed}`);
      const { files, cases } = editCases(seed, 40);
      const theirs = await editThrough("reference", files, cases);
      const mine = await editThrough("ours", files, cases);
      cases.forEach((editCase, i) => {
        const label = `seed ${seed} (set REPLAY_SEED to replay): ${JSON.stringify({ ...editCase, text: files[editCase.path] })}`;
        expect(mine[i], label).toEqual(theirs[i]);
      });
    });
  }
});

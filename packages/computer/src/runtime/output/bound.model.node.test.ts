/**
 * Model test of a whole bounded run on real dofs storage (better-sqlite3):
 * random stdout/stderr events of random sizes, across the 512 KiB storage
 * chunk boundaries, pass through `OutputBound`. The live stream must be the
 * output unchanged, each cut stream saved byte for byte with its tail kept
 * as the model cuts it, and a stream that fit reported as absent. Every
 * failure names its seed; run more with OUTPUT_BOUND_SEEDS=<count>.
 */
import { concatBytes, SQLiteWorkspaceProvider } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { describe, expect, it } from "vitest";
import type { ExecEvent } from "../types.js";
import { OutputBound } from "./bound.js";
import { providerOutputStore } from "./provider-store.js";
import { OutputTail } from "./tail.js";

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function chunk(next: () => number, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = next() < 0.05 ? 0x0a : 0x61 + Math.floor(next() * 26);
  return bytes;
}

async function readAll(stream: ReadableStream<ExecEvent>): Promise<ExecEvent[]> {
  const events: ExecEvent[] = [];
  for await (const event of stream as unknown as AsyncIterable<ExecEvent>) events.push(event);
  return events;
}

describe("OutputBound on dofs storage", () => {
  const seeds = Number(process.env.OUTPUT_BOUND_SEEDS ?? 12);
  it(`saves each cut stream byte for byte and keeps the model's tail, over ${seeds} seeds`, async () => {
    for (let seed = 1; seed <= seeds; seed++) {
      const next = random(seed);
      const context = `seed ${seed}`;
      const provider = new SQLiteWorkspaceProvider(openNodeDatabase());
      const limits = {
        maxLines: 1 + Math.floor(next() * 3000),
        maxBytes: 1 + Math.floor(next() * 70_000),
        dir: "/.computer/output",
        keep: 50,
      };
      const sent: Record<"stdout" | "stderr", Uint8Array[]> = { stdout: [], stderr: [] };
      const events: ExecEvent[] = [];
      const count = Math.floor(next() * 40);
      for (let seq = 0; seq < count; seq++) {
        const name = next() < 0.7 ? "stdout" : "stderr";
        // Mostly small writes, now and then one past a storage chunk.
        const size = next() < 0.1 ? Math.floor(next() * 700_000) : Math.floor(next() * 20_000);
        const value = chunk(next, size);
        sent[name].push(value);
        events.push({ id: "run", seq, name, value });
      }
      events.push({ id: "run", seq: count, name: "exit", code: 0 });
      const source = new ReadableStream<ExecEvent>({
        start(controller) {
          for (const event of events) controller.enqueue(event);
          controller.close();
        },
      });
      const bound = new OutputBound(
        limits,
        { store: providerOutputStore(() => provider), active: new Set() },
        { backend: "b", id: "run" },
      );
      const passed = await readAll(bound.wrap(source));
      expect(passed.slice(0, -1), context).toEqual(events.slice(0, -1));
      const exit = passed.at(-1);
      for (const name of ["stdout", "stderr"] as const) {
        const full = concatBytes(sent[name]);
        const model = new OutputTail(limits);
        model.push(full);
        const report = bound.truncation?.[name];
        expect(exit?.name === "exit" ? exit.truncated?.[name] : undefined, context).toEqual(report);
        expect([...(bound.kept(name, undefined) as Uint8Array)], context).toEqual([...model.bytes()]);
        if (!model.cut) {
          expect(report, `${context} ${name}`).toBeUndefined();
          continue;
        }
        expect(report, `${context} ${name}`).toEqual({
          status: "saved",
          path: `/.computer/output/b.run.${name}.log`,
          ...model.summary(),
        });
        const saved = provider.readFileSync(`/.computer/output/b.run.${name}.log`) as Uint8Array;
        expect(saved.byteLength, `${context} ${name}`).toBe(full.byteLength);
        expect(Buffer.compare(Buffer.from(saved), Buffer.from(full)), `${context} ${name}`).toBe(0);
      }
    }
  });
});

/**
 * Model test of the output tail: random output (ASCII, newlines, multibyte
 * characters split anywhere) fed in random chunks, against a model that cuts
 * the whole output at the end. Every failure names its seed; run more with
 * OUTPUT_TAIL_SEEDS=<count>.
 */
import { describe, expect, it } from "vitest";
import { OutputTail, type TailLimits } from "./tail.js";

const NEWLINE = 0x0a;

/** mulberry32, so a failure names its seed. */
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

/** The model: the whole output, cut at the end (last `maxLines` lines, then last `maxBytes` bytes). */
function model(output: Uint8Array, limits: TailLimits) {
  const newlines: number[] = [];
  output.forEach((byte, at) => {
    if (byte === NEWLINE) newlines.push(at);
  });
  const unterminated = output.length > 0 && output[output.length - 1] !== NEWLINE ? 1 : 0;
  const totalLines = newlines.length + unterminated;
  let start = 0;
  // Line k (1-based) starts after newline k-1; keep lines totalLines-maxLines+1 onward.
  const firstKept = totalLines - limits.maxLines + 1;
  if (firstKept > 1) start = (newlines[firstKept - 2] as number) + 1;
  start = Math.max(start, output.length - limits.maxBytes);
  const before = newlines.filter((at) => at < start).length;
  return {
    bytes: output.subarray(start),
    summary: {
      totalBytes: output.length,
      totalLines,
      firstLine: before + 1,
      partialLine: start > 0 && output[start - 1] !== NEWLINE,
    },
    cut: start > 0,
  };
}

/** What the kept bytes read as text: a character split by the cut is left out. */
function modelText(bytes: Uint8Array, cut: boolean): string {
  let start = 0;
  if (cut) while (start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(bytes.subarray(start));
}

const PIECES = ["a", "bc", "\n", "\n\n", "é", "€", "😀", "line of text\n", "x".repeat(40)];

function generate(next: () => number): Uint8Array {
  const parts: string[] = [];
  const count = Math.floor(next() * 120);
  for (let i = 0; i < count; i++) parts.push(PIECES[Math.floor(next() * PIECES.length)] as string);
  return new TextEncoder().encode(parts.join(""));
}

describe("OutputTail", () => {
  const seeds = Number(process.env.OUTPUT_TAIL_SEEDS ?? 400);
  it(`matches the cut-at-the-end model over ${seeds} seeds`, () => {
    for (let seed = 1; seed <= seeds; seed++) {
      const next = random(seed);
      const limits = { maxLines: 1 + Math.floor(next() * 12), maxBytes: 1 + Math.floor(next() * 90) };
      const output = generate(next);
      const tail = new OutputTail(limits);
      let firstCuts = 0;
      for (let at = 0; at < output.length; ) {
        const size = Math.floor(next() * (limits.maxBytes * 2 + 3));
        if (tail.push(output.subarray(at, at + size))) firstCuts++;
        at += size;
        // The window never holds more than the byte limit between pushes.
        expect(tail.bytes().length, `seed ${seed}`).toBeLessThanOrEqual(limits.maxBytes);
      }
      const expected = model(output, limits);
      const context = `seed ${seed} limits ${JSON.stringify(limits)}`;
      expect([...tail.bytes()], context).toEqual([...expected.bytes]);
      expect(tail.summary(), context).toEqual(expected.summary);
      expect(tail.cut, context).toBe(expected.cut);
      expect(firstCuts, context).toBe(expected.cut ? 1 : 0);
      expect(tail.text(), context).toBe(modelText(expected.bytes, expected.cut));
    }
  });

  it("a cut inside a character counts as a cut even though the rest fits", () => {
    const tail = new OutputTail({ maxLines: 10, maxBytes: 3 });
    // "😀" is four bytes: keeping the last three keeps none of it as text.
    expect(tail.push(new TextEncoder().encode("😀"))).toBe(true);
    expect(tail.text()).toBe("");
    expect(tail.summary()).toEqual({ totalBytes: 4, totalLines: 1, firstLine: 1, partialLine: true });
  });

  it("output that fits exactly is not cut", () => {
    const tail = new OutputTail({ maxLines: 2, maxBytes: 4 });
    expect(tail.push(new TextEncoder().encode("a\nb\n"))).toBe(false);
    expect(tail.cut).toBe(false);
    expect(tail.summary()).toEqual({ totalBytes: 4, totalLines: 2, firstLine: 1, partialLine: false });
    expect(tail.push(new TextEncoder().encode("c"))).toBe(true);
    expect(tail.text()).toBe("b\nc");
    expect(tail.summary()).toEqual({ totalBytes: 5, totalLines: 3, firstLine: 2, partialLine: false });
  });
});

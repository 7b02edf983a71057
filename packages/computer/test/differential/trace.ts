/**
 * A scenario's record for the differential tests: each step's label and its
 * outcome, normalized so two packages can be compared with `toEqual` —
 * a value becomes plain data, an error its `code` and `message` (the parts
 * user code branches on), a time becomes a marker (both sides read the clock).
 */
import { expect } from "vitest";

export type Settled = { ok: unknown } | { error: { code: unknown; message: string } };

export interface Outcome {
  label: string;
  outcome: Settled;
}

export interface Trace {
  step<T>(label: string, run: () => Promise<T> | T): Promise<T | undefined>;
}

const timeKeys = new Set(["mtime", "ctime", "atime", "birthtime", "mtimeMs", "ctimeMs", "createdAt", "updatedAt"]);

/** Plain data for `toEqual`: bytes as arrays, times as a marker, functions dropped. */
export function normalize(value: unknown, key?: string): unknown {
  if (key !== undefined && timeKeys.has(key) && (typeof value === "number" || value instanceof Date)) return "<time>";
  if (value instanceof Uint8Array) return { bytes: [...value] };
  if (value instanceof Date) return "<time>";
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (typeof value === "function") return undefined;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const normalized = normalize(v, k);
      if (normalized !== undefined) out[k] = normalized;
    }
    return out;
  }
  return value;
}

async function settle(run: () => unknown): Promise<Settled> {
  try {
    let value = await run();
    if (value instanceof ReadableStream) value = new Uint8Array(await new Response(value).arrayBuffer());
    return { ok: normalize(value) };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { error: { code, message: String(message) } };
  }
}

/** Runs `scenario`, recording every step; a step's failure is recorded, not thrown. */
export async function trace(scenario: (step: Trace["step"]) => Promise<void>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await scenario(async (label, run) => {
    const outcome = await settle(run);
    outcomes.push({ label, outcome });
    return "ok" in outcome ? (outcome.ok as never) : undefined;
  });
  return outcomes;
}

/** Two outcomes as the same JSON: the default sameness of `mismatches`. */
export const sameJson = (reference: unknown, ours: unknown): boolean =>
  JSON.stringify(reference) === JSON.stringify(ours);

/**
 * What a scenario's two records disagree on: every step whose outcome
 * differs and is not listed in `differences` (keyed `<scenario> › <label>`),
 * and every listed one that no longer differs, so a deliberate difference
 * cannot outlive its reason. Both records must have the same steps.
 */
export function mismatches<O extends { label: string; outcome: unknown }>(
  name: string,
  reference: readonly O[],
  ours: readonly O[],
  differences: Readonly<Record<string, string>>,
  same: (reference: O["outcome"], ours: O["outcome"]) => boolean = sameJson,
): string[] {
  expect(ours.map(({ label }) => label)).toEqual(reference.map(({ label }) => label));
  const found: string[] = [];
  reference.forEach((expected, index) => {
    const key = `${name} › ${expected.label}`;
    const actual = ours[index]?.outcome as O["outcome"];
    const alike = same(expected.outcome, actual);
    if (key in differences) {
      if (alike) found.push(`${key}: listed as a deliberate difference but now matches`);
    } else if (!alike) {
      found.push(`${key}:\n  reference ${JSON.stringify(expected.outcome)}\n  ours      ${JSON.stringify(actual)}`);
    }
  });
  return found;
}

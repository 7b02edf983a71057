/** TTLs: whole seconds (`3600`) or unit groups (`2h30m`, `1d`, `90s`), surrounding spaces ignored. Anything else is a UsageError. */
import { UsageError } from "./args.js";

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

export function parseTtl(input: string): number {
  const text = input.trim();
  if (/^\d+$/.test(text)) return positive(Number(text), input);
  if (!/^(\d+[smhdSMHD])+$/.test(text)) throw new UsageError(`invalid --ttl '${input}': use seconds or e.g. 2h30m`);
  let total = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([a-z])/gi))
    total += Number(count) * (UNIT_SECONDS[(unit as string).toLowerCase()] ?? 0);
  return positive(total, input);
}

function positive(seconds: number, input: string): number {
  if (!Number.isSafeInteger(seconds) || seconds <= 0)
    throw new UsageError(`invalid --ttl '${input}': must be a positive number of seconds`);
  return seconds;
}

/** `--ttl`, parsed, or undefined when absent. */
export function ttlFlag(values: ReadonlyMap<string, string>): number | undefined {
  const text = values.get("ttl");
  return text === undefined ? undefined : parseTtl(text);
}

/** TTLs: whole seconds (`3600`) or unit groups (`2h30m`, `1d`, `90s`). Anything else is an argv error. */
import { GitUsageError } from "../../git/errors.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export function parseTtl(text: string): number {
  if (/^\d+$/.test(text)) return positive(Number(text), text);
  if (!/^(\d+[smhd])+$/.test(text)) throw new GitUsageError(`invalid --ttl '${text}': use seconds or e.g. 2h30m`);
  let total = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([smhd])/g))
    total += Number(count) * (UNIT_SECONDS[unit as string] ?? 0);
  return positive(total, text);
}

function positive(seconds: number, text: string): number {
  if (!Number.isSafeInteger(seconds) || seconds <= 0)
    throw new GitUsageError(`invalid --ttl '${text}': must be positive`);
  return seconds;
}

/**
 * Durations as a model writes them: a whole number of a unit (`90s`, `15m`,
 * `2h`, `7d`, `500ms`). Anything else is refused with the accepted form named.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDurationMs(text: string): number {
  const match = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(text);
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isSafeInteger(amount) || amount <= 0) {
    throw new TypeError(`${JSON.stringify(text)} is not a duration such as "90s", "15m", "2h" or "7d"`);
  }
  return amount * (UNIT_MS[match[2] as string] as number);
}

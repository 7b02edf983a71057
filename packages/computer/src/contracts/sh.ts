/**
 * Building shell command strings without injection: `shellQuote` quotes one
 * value, and the `sh` tag quotes every interpolated value of a template.
 *
 * The rule, the original's: a non-empty string made only of
 * `A–Z a–z 0–9 _ - + = : , . / @ %` stays bare, since no shell gives those
 * characters a meaning in an argument (`=` only makes an assignment in command
 * position, which an interpolated value in `cmd ${x}` never takes; `~` is
 * quoted, it would expand).
 * Anything else is wrapped in single quotes, inside which nothing is special
 * except `'` itself, written as `'\''` (close, escaped quote, reopen). The empty
 * string is `''`, so it still counts as an argument.
 *
 * `{ raw }` is the escape hatch for shell syntax the caller means (a glob, a
 * pipe, a redirection built elsewhere): it is inserted as it is, unquoted.
 */

const BARE = /^[A-Za-z0-9_\-+=:,./@%]+$/;

export function shellQuote(value: string): string {
  if (BARE.test(value)) return value;
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Text `sh` inserts verbatim: shell syntax on purpose, never user input. */
export interface RawShellValue {
  raw: string;
}

/** A value `sh` accepts: scalars are stringified; arrays become one quoted word per element; `{ raw }` is verbatim. */
export type ShellValue = string | number | bigint | RawShellValue | readonly (string | number | bigint)[];

/**
 * Tagged template for a shell command: `sh\`grep -r ${pattern} ${paths}\``.
 * The template text is used raw (as written in the source, escapes untouched),
 * so the shell sees exactly what the author typed; only values are quoted.
 */
export function sh(strings: TemplateStringsArray, ...values: ShellValue[]): string {
  let command = strings.raw[0] ?? "";
  values.forEach((value, index) => {
    command += quoteValue(value) + (strings.raw[index + 1] ?? "");
  });
  return command;
}

function quoteValue(value: ShellValue): string {
  if (Array.isArray(value)) return value.map((element: unknown) => quoteScalar(element)).join(" ");
  if (isRaw(value)) return value.raw;
  return quoteScalar(value);
}

function isRaw(value: unknown): value is RawShellValue {
  if (typeof value !== "object" || value === null || !("raw" in value)) return false;
  if (typeof value.raw !== "string") throw new TypeError(`sh: { raw } needs a string, got ${typeof value.raw}`);
  return true;
}

function quoteScalar(value: unknown): string {
  if (typeof value === "string") return shellQuote(value);
  if (typeof value === "number" || typeof value === "bigint") return shellQuote(String(value));
  // undefined or an object would become "undefined" / "[object Object]" in the command: refuse instead.
  throw new TypeError(
    `sh: cannot interpolate ${value === null ? "null" : typeof value}; pass a string, number, array or { raw }`,
  );
}

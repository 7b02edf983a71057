/**
 * Building shell command strings without injection: `shellQuote` quotes one
 * value, and the `sh` tag quotes every interpolated value of a template.
 *
 * The rule: a non-empty string made only of `A–Z a–z 0–9 _ - . , : / @ % +`
 * stays bare, since no POSIX shell gives those characters a meaning (`=` and a
 * leading `~` are left out: an `a=b` word becomes an assignment, `~` expands).
 * Anything else is wrapped in single quotes, inside which nothing is special
 * except `'` itself, written as `'\''` (close, escaped quote, reopen). The empty
 * string is `''`, so it still counts as an argument.
 */

const BARE = /^[A-Za-z0-9_\-.,:/@%+]+$/;

export function shellQuote(value: string): string {
  if (BARE.test(value)) return value;
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** A value `sh` accepts: scalars are stringified; arrays become one quoted word per element. */
export type ShellValue = string | number | bigint | readonly (string | number | bigint)[];

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
  return quoteScalar(value);
}

function quoteScalar(value: unknown): string {
  if (typeof value === "string") return shellQuote(value);
  if (typeof value === "number" || typeof value === "bigint") return shellQuote(String(value));
  // undefined or an object would become "undefined" / "[object Object]" in the command: refuse instead.
  throw new TypeError(
    `sh: cannot interpolate ${value === null ? "null" : typeof value}; pass a string, number or array`,
  );
}

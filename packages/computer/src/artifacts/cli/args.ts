/**
 * The artifacts CLI's getopt: `--name value`, `--name=value`, boolean
 * `--name`, and `--` ending the options. Every other word is a positional
 * (the names it takes cannot start with `-` anyway). A mistake is a
 * UsageError: exit 129, framed by the subcommand.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

export type FlagKinds = Readonly<Record<string, "value" | "boolean">>;

export interface Parsed {
  values: Map<string, string>;
  booleans: Set<string>;
  positionals: string[];
}

export function parseFlags(argv: readonly string[], kinds: FlagKinds): Parsed {
  const parsed: Parsed = { values: new Map(), booleans: new Set(), positionals: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      parsed.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = Object.hasOwn(kinds, name) ? kinds[name] : undefined;
    if (kind === undefined) throw new UsageError(`unknown option '--${name}'`);
    if (kind === "boolean") {
      if (eq !== -1) throw new UsageError(`option '--${name}' takes no value`);
      parsed.booleans.add(name);
    } else if (eq !== -1) parsed.values.set(name, arg.slice(eq + 1));
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`option '--${name}' requires a value`);
      parsed.values.set(name, value);
    }
  }
  return parsed;
}

/** Exactly `names.length` positionals, named in the usage error when one is missing or extra. */
export function positionals(parsed: Parsed, names: readonly string[]): string[] {
  const given = parsed.positionals;
  const missing = names[given.length];
  if (missing !== undefined) throw new UsageError(`missing <${missing}>`);
  const extra = given[names.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  return given;
}

/** `--scope read|write`, or `fallback` when absent. */
export function scopeFlag<T extends "read" | "write" | undefined>(parsed: Parsed, fallback: T): "read" | "write" | T {
  const scope = parsed.values.get("scope");
  if (scope === undefined) return fallback;
  if (scope !== "read" && scope !== "write") throw new UsageError(`--scope is read or write, not '${scope}'`);
  return scope;
}

/**
 * A small getopt for the git subcommands: `--long`, `--long=value`,
 * `--long value`, `-s`, `-svalue`, bundled booleans (`-am msg`), `--` and
 * `--no-<flag>` for booleans. Anything unknown is a GitUsageError (129),
 * worded like git's "unknown option".
 */
import { GitUsageError } from "../errors.js";

export interface FlagSpec {
  type: "boolean" | "string";
  short?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface ParsedArgs {
  /** Booleans as true/false; strings as every value given, in order. */
  flags: Map<string, boolean | string[]>;
  positionals: string[];
  /** Everything after `--`. */
  rest: string[];
}

export function parseArgs(argv: readonly string[], specs: FlagSpecs): ParsedArgs {
  const flags = new Map<string, boolean | string[]>();
  const positionals: string[] = [];
  const byShort = new Map(Object.entries(specs).flatMap(([name, spec]) => (spec.short ? [[spec.short, name]] : [])));
  const set = (name: string, value: boolean | string): void => {
    if (typeof value === "boolean") flags.set(name, value);
    else flags.set(name, [...((flags.get(name) as string[] | undefined) ?? []), value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return { flags, positionals, rest: argv.slice(i + 1) };
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq === -1 ? undefined : eq);
      const negated = name.startsWith("no-") && specs[name.slice(3)]?.type === "boolean";
      const spec = negated ? specs[name.slice(3)] : specs[name];
      if (!spec) throw new GitUsageError(`unknown option '${name}'`);
      if (spec.type === "boolean") {
        if (eq !== -1) throw new GitUsageError(`option '${name}' takes no value`);
        set(negated ? name.slice(3) : name, !negated);
      } else if (eq !== -1) set(name, arg.slice(eq + 1));
      else {
        const value = argv[++i];
        if (value === undefined) throw new GitUsageError(`option '${name}' requires a value`);
        set(name, value);
      }
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        const name = byShort.get(letter);
        const spec = name === undefined ? undefined : specs[name];
        if (!name || !spec) throw new GitUsageError(`unknown switch '${letter}'`);
        if (spec.type === "boolean") {
          set(name, true);
          continue;
        }
        const inline = arg.slice(j + 1);
        const value = inline !== "" ? inline : argv[++i];
        if (value === undefined) throw new GitUsageError(`switch '${letter}' requires a value`);
        set(name, value);
        break;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { flags, positionals, rest: [] };
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.flags.get(name) === true;
}

/** The last value of a string option. */
export function option(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return Array.isArray(value) ? value[value.length - 1] : undefined;
}

export function options(args: ParsedArgs, name: string): string[] {
  const value = args.flags.get(name);
  return Array.isArray(value) ? value : [];
}

export function maxPositionals(args: ParsedArgs, max: number, usage: string): void {
  if (args.positionals.length > max) throw new GitUsageError(`too many arguments\nusage: ${usage}`);
}

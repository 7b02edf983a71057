/**
 * The test shell's commands. Each writes into a per-command buffer that the
 * interpreter flushes once the command returns, so one command's output on a
 * stream is one event — which lets a test place event boundaries exactly
 * (`printf '\xe2\x82'; printf '\xac'` is two stdout events).
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import { formatPrintf } from "./printf.js";

export interface CommandContext {
  readonly fs: WorkspaceFilesystem;
  readonly stdin: Uint8Array;
  readonly signal: AbortSignal;
  cwd: string;
  readonly vars: Map<string, string>;
  /** Exit status of the previous pipeline (`$?`), for `exit` without an argument. */
  readonly status: number;
  out(data: string | Uint8Array): void;
  err(data: string | Uint8Array): void;
}

export type Builtin = (args: string[], ctx: CommandContext) => Promise<number>;

/** Thrown by `exit`: unwinds to the top of the script (or of a pipeline stage). */
export class ExitRequest {
  constructor(readonly code: number) {}
}

/** Resolves `path` against `cwd` textually; `..` at the root stays at the root, as in a shell. */
export function resolvePath(cwd: string, path: string): string {
  const segments: string[] = [];
  for (const segment of `${path.startsWith("/") ? "" : cwd}/${path}`.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

export async function readBytes(fs: WorkspaceFilesystem, path: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of (await fs.readFile(path)) as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return concatBytes(chunks);
}

export function concatBytes(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Splits leading `-abc` flags from operands; `--` ends flags. Unknown letters are an error. */
function flags(args: string[], allowed: string): { set: Set<string>; rest: string[] } {
  const set = new Set<string>();
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      i += 1;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    for (const letter of arg.slice(1)) {
      if (!allowed.includes(letter)) throw new Error(`invalid option -- '${letter}'`);
      set.add(letter);
    }
  }
  return { set, rest: args.slice(i) };
}

async function statOrNull(fs: WorkspaceFilesystem, path: string) {
  try {
    return await fs.stat(path);
  } catch {
    return null;
  }
}

/** Runs `body` per operand; a failure prints `<command>: <message>` and makes the status 1 but does not stop the rest. */
async function each<T>(ctx: CommandContext, command: string, operands: T[], body: (operand: T) => Promise<void>) {
  let status = 0;
  for (const operand of operands) {
    ctx.signal.throwIfAborted();
    try {
      await body(operand);
    } catch (error) {
      ctx.err(`${command}: ${messageOf(error)}\n`);
      status = 1;
    }
  }
  return status;
}

const echo: Builtin = async (args, ctx) => {
  let newline = true;
  while (args[0] === "-n") {
    newline = false;
    args = args.slice(1);
  }
  ctx.out(`${args.join(" ")}${newline ? "\n" : ""}`);
  return 0;
};

const printf: Builtin = async (args, ctx) => {
  if (args.length === 0) {
    ctx.err("printf: usage: printf format [arguments]\n");
    return 2;
  }
  const { bytes, errors } = formatPrintf(args[0] as string, args.slice(1));
  ctx.out(bytes);
  for (const error of errors) ctx.err(`printf: ${error}\n`);
  return errors.length === 0 ? 0 : 1;
};

const cat: Builtin = async (args, ctx) => {
  const operands = args.length === 0 ? ["-"] : args;
  const chunks: Uint8Array[] = [];
  const status = await each(ctx, "cat", operands, async (operand) => {
    chunks.push(operand === "-" ? ctx.stdin : await readBytes(ctx.fs, resolvePath(ctx.cwd, operand)));
  });
  // Collected first so cat's output stays one event even with several files.
  ctx.out(concatBytes(chunks));
  return status;
};

const exit: Builtin = async (args, ctx) => {
  const code = args[0] === undefined ? ctx.status : Number.parseInt(args[0], 10);
  throw new ExitRequest(Number.isNaN(code) ? 2 : code & 0xff);
};

const sleep: Builtin = async (args, ctx) => {
  const seconds = args.reduce((total, arg) => total + Number(arg), 0);
  if (args.length === 0 || !Number.isFinite(seconds) || seconds < 0) {
    ctx.err(`sleep: invalid time interval '${args.join(" ")}'\n`);
    return 1;
  }
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(ctx.signal.reason);
    };
    const timer = setTimeout(() => {
      ctx.signal.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
  return 0;
};

const cd: Builtin = async (args, ctx) => {
  const target = resolvePath(ctx.cwd, args[0] ?? ctx.vars.get("HOME") ?? "/");
  const stat = await ctx.fs.stat(target);
  if (!stat.isDirectory) throw new Error(`${args[0]}: Not a directory`);
  ctx.cwd = target;
  ctx.vars.set("PWD", target);
  return 0;
};

const ls: Builtin = async (args, ctx) => {
  const { set, rest } = flags(args, "a1");
  const operands = rest.length === 0 ? ["."] : rest;
  const files: string[] = [];
  const dirs: { operand: string; names: string[] }[] = [];
  const status = await each(ctx, "ls", operands, async (operand) => {
    const path = resolvePath(ctx.cwd, operand);
    const stat = await ctx.fs.stat(path);
    if (!stat.isDirectory) {
      files.push(operand);
      return;
    }
    const names = (await ctx.fs.readdir(path)).map((entry) => entry.name);
    const shown = set.has("a") ? [".", "..", ...names] : names.filter((name) => !name.startsWith("."));
    dirs.push({ operand, names: shown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) });
  });
  const blocks: string[] = [];
  if (files.length > 0) blocks.push(files.map((file) => `${file}\n`).join(""));
  const headed = operands.length > 1;
  for (const dir of dirs) blocks.push(`${headed ? `${dir.operand}:\n` : ""}${dir.names.map((n) => `${n}\n`).join("")}`);
  ctx.out(blocks.join("\n"));
  return status;
};

const mkdir: Builtin = async (args, ctx) => {
  const { set, rest } = flags(args, "p");
  return each(ctx, "mkdir", rest, (operand) =>
    ctx.fs.mkdir(resolvePath(ctx.cwd, operand), { recursive: set.has("p") }),
  );
};

const rm: Builtin = async (args, ctx) => {
  const { set, rest } = flags(args, "rRf");
  if (rest.length === 0 && !set.has("f")) throw new Error("missing operand");
  const recursive = set.has("r") || set.has("R");
  return each(ctx, "rm", rest, (operand) =>
    ctx.fs.rm(resolvePath(ctx.cwd, operand), { recursive, force: set.has("f") }),
  );
};

/** dofs has no utimes, so touching an existing file leaves it alone rather than rewriting it (which would sync). */
const touch: Builtin = async (args, ctx) =>
  each(ctx, "touch", args, async (operand) => {
    const path = resolvePath(ctx.cwd, operand);
    if ((await statOrNull(ctx.fs, path)) === null) await ctx.fs.writeFile(path, "");
  });

/** `mv`/`cp` with a directory as the last operand move or copy into it; otherwise exactly one source. */
async function targets(ctx: CommandContext, operands: string[]): Promise<[string, string][]> {
  if (operands.length < 2) throw new Error("missing destination file operand");
  const dest = resolvePath(ctx.cwd, operands[operands.length - 1] as string);
  const sources = operands.slice(0, -1).map((operand) => resolvePath(ctx.cwd, operand));
  if ((await statOrNull(ctx.fs, dest))?.isDirectory) {
    return sources.map((source) => [source, resolvePath(dest, source.slice(source.lastIndexOf("/") + 1))]);
  }
  if (sources.length > 1) throw new Error(`target '${operands[operands.length - 1]}' is not a directory`);
  return [[sources[0] as string, dest]];
}

const mv: Builtin = async (args, ctx) => {
  const pairs = await targets(ctx, flags(args, "f").rest);
  return each(ctx, "mv", pairs, ([from, to]) => ctx.fs.rename(from, to));
};

async function copy(fs: WorkspaceFilesystem, from: string, to: string, recursive: boolean): Promise<void> {
  const stat = await fs.stat(from);
  if (!stat.isDirectory) {
    await fs.writeFile(to, await readBytes(fs, from), { mode: stat.mode });
    return;
  }
  if (!recursive) throw new Error(`-r not specified; omitting directory '${from}'`);
  if ((await statOrNull(fs, to)) === null) await fs.mkdir(to, { mode: stat.mode });
  for (const entry of await fs.readdir(from)) {
    await copy(fs, `${from}/${entry.name}`, `${to}/${entry.name}`, true);
  }
}

const cp: Builtin = async (args, ctx) => {
  const { set, rest } = flags(args, "rR");
  const pairs = await targets(ctx, rest);
  return each(ctx, "cp", pairs, ([from, to]) => copy(ctx.fs, from, to, set.has("r") || set.has("R")));
};

/** `test` for the forms tests need: `-e -f -d PATH`, `-n -z STRING`, `A = B`, `A != B`, `! EXPR`. */
async function evaluate(args: string[], ctx: CommandContext): Promise<boolean> {
  if (args[0] === "!") return !(await evaluate(args.slice(1), ctx));
  const [a, b, c] = args;
  if (args.length === 0) return false;
  if (args.length === 1) return a !== "";
  if (args.length === 2 && (a === "-e" || a === "-f" || a === "-d")) {
    const stat = await statOrNull(ctx.fs, resolvePath(ctx.cwd, b as string));
    return a === "-e" ? stat !== null : a === "-f" ? stat?.isFile === true : stat?.isDirectory === true;
  }
  if (args.length === 2 && (a === "-n" || a === "-z")) return (b === "") === (a === "-z");
  if (args.length === 3 && (b === "=" || b === "==")) return a === c;
  if (args.length === 3 && b === "!=") return a !== c;
  throw new Error(`unsupported expression: ${args.join(" ")}`);
}

const test: Builtin = async (args, ctx) => {
  try {
    return (await evaluate(args, ctx)) ? 0 : 1;
  } catch (error) {
    ctx.err(`test: ${messageOf(error)}\n`);
    return 2;
  }
};

const bracket: Builtin = async (args, ctx) => {
  if (args[args.length - 1] !== "]") {
    ctx.err("[: missing ']'\n");
    return 2;
  }
  return test(args.slice(0, -1), ctx);
};

const env: Builtin = async (args, ctx) => {
  if (args.length > 0) throw new Error("running a command is not supported");
  ctx.out([...ctx.vars].map(([name, value]) => `${name}=${value}\n`).join(""));
  return 0;
};

const exportVars: Builtin = async (args, ctx) => {
  for (const arg of args) {
    const eq = arg.indexOf("=");
    if (eq > 0) ctx.vars.set(arg.slice(0, eq), arg.slice(eq + 1));
  }
  return 0;
};

const pwd: Builtin = async (_args, ctx) => {
  ctx.out(`${ctx.cwd}\n`);
  return 0;
};

/** A Map, not an object literal, so `constructor` or `toString` are not commands. */
export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [":", async () => 0],
  ["[", bracket],
  ["cat", cat],
  ["cd", cd],
  ["cp", cp],
  ["echo", echo],
  ["env", env],
  ["exit", exit],
  ["export", exportVars],
  ["false", async () => 1],
  ["ls", ls],
  ["mkdir", mkdir],
  ["mv", mv],
  ["printf", printf],
  ["pwd", pwd],
  ["rm", rm],
  ["sleep", sleep],
  ["test", test],
  ["touch", touch],
  ["true", async () => 0],
]);

/**
 * A tiny POSIX-ish shell over a dofs `WorkspaceFilesystem`: enough for tests
 * to drive a command backend (files in, files out, exit codes, output split
 * into known events) without a container. Not bash: no globbing, no field
 * splitting of `$VAR`, pipelines run their stages one after another (each
 * stage's whole stdout becomes the next one's stdin), and every variable is
 * exported. The grammar is in parse.ts, the commands in builtins.ts.
 */
import { type WorkspaceFilesystem, WorkspaceFsError } from "@cloudflare/dofs";
import {
  BUILTINS,
  type CommandContext,
  concatBytes,
  ExitRequest,
  messageOf,
  readBytes,
  resolvePath,
} from "./builtins.js";
import {
  type AndOr,
  type Pipeline,
  parse,
  type Redirect,
  ShellSyntaxError,
  type SimpleCommand,
  type Word,
} from "./parse.js";

export interface ShellRun {
  fs: WorkspaceFilesystem;
  /** Absolute; the caller checked it exists. */
  cwd: string;
  /** Initial variables, already layered (HOME, the caller's env, PWD). */
  vars: Record<string, string>;
  stdin: Uint8Array;
  /** Stops the script before its next command; a `sleep` in progress rejects. */
  signal: AbortSignal;
  /** One call per event: a command's output on one stream, or a shell error. */
  write(name: "stdout" | "stderr", bytes: Uint8Array): void;
}

/** Runs `source` to completion and returns its exit status. Rejects with the abort reason if aborted. */
export async function runShell(source: string, run: ShellRun): Promise<number> {
  const stderr: Sink = { write: (bytes) => run.write("stderr", bytes) };
  let script: AndOr[];
  try {
    script = parse(source);
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
    stderr.write(encoder.encode(`sh: ${error.message}\n`));
    return 2;
  }
  const state: ShellState = { cwd: run.cwd, vars: new Map(Object.entries(run.vars)), status: 0 };
  const fds: Fds = [{ write: (bytes) => run.write("stdout", bytes) }, stderr];
  const shell = new Shell(run.fs, run.signal, state);
  try {
    for (const andOr of script) await shell.andOr(andOr, run.stdin, fds);
    return state.status;
  } catch (error) {
    if (error instanceof ExitRequest) return error.code;
    throw error;
  }
}

const encoder = new TextEncoder();

interface Sink {
  write(bytes: Uint8Array): void;
}

/** Where a command's stdout (`[0]`) and stderr (`[1]`) go. */
type Fds = [Sink, Sink];

interface ShellState {
  cwd: string;
  vars: Map<string, string>;
  /** `$?` */
  status: number;
}

/** A command's output in write order; adjacent writes to one stream merge, so each run is one event. */
class CommandOutput {
  readonly #runs: { fd: 0 | 1; chunks: Uint8Array[] }[] = [];

  write(fd: 0 | 1, data: string | Uint8Array): void {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    if (bytes.byteLength === 0) return;
    const last = this.#runs[this.#runs.length - 1];
    if (last?.fd === fd) last.chunks.push(bytes);
    else this.#runs.push({ fd, chunks: [bytes] });
  }

  flush(fds: Fds): void {
    for (const run of this.#runs.splice(0)) fds[run.fd].write(concatBytes(run.chunks));
  }
}

/** Output redirected to a file: the file is opened (created or truncated) up front and written when the command ends. */
class FileSink implements Sink {
  readonly #chunks: Uint8Array[] = [];

  constructor(
    readonly path: string,
    readonly append: boolean,
  ) {}

  write(bytes: Uint8Array): void {
    this.#chunks.push(bytes);
  }

  async open(fs: WorkspaceFilesystem): Promise<void> {
    if (!this.append) {
      await fs.writeFile(this.path, "");
      return;
    }
    const stat = await fs.stat(this.path).catch(() => null);
    if (stat === null) await fs.writeFile(this.path, "");
    else if (stat.isDirectory) throw new WorkspaceFsError("EISDIR", "open", this.path);
  }

  async close(fs: WorkspaceFilesystem): Promise<void> {
    if (this.#chunks.length === 0) return;
    const data = concatBytes(this.append ? [await readBytes(fs, this.path), ...this.#chunks] : this.#chunks);
    await fs.writeFile(this.path, data);
  }
}

class BufferSink implements Sink {
  readonly chunks: Uint8Array[] = [];

  write(bytes: Uint8Array): void {
    this.chunks.push(bytes);
  }
}

class Shell {
  constructor(
    readonly fs: WorkspaceFilesystem,
    readonly signal: AbortSignal,
    readonly state: ShellState,
  ) {}

  async andOr(list: AndOr, stdin: Uint8Array, fds: Fds): Promise<void> {
    this.state.status = await this.#pipeline(list.head, stdin, fds);
    for (const { op, pipeline } of list.tail) {
      if ((op === "&&") === (this.state.status === 0)) this.state.status = await this.#pipeline(pipeline, stdin, fds);
    }
  }

  async #pipeline(pipeline: Pipeline, stdin: Uint8Array, fds: Fds): Promise<number> {
    let status: number;
    if (pipeline.commands.length === 1) {
      status = await this.#command(pipeline.commands[0] as SimpleCommand, stdin, fds);
    } else {
      let input = stdin;
      status = 0;
      for (const [index, command] of pipeline.commands.entries()) {
        const last = index === pipeline.commands.length - 1;
        const pipe = new BufferSink();
        // Each stage is a subshell: its `cd`, variables and `exit` stay inside it.
        const stage = new Shell(this.fs, this.signal, { ...this.state, vars: new Map(this.state.vars) });
        try {
          status = await stage.#command(command, input, [last ? fds[0] : pipe, fds[1]]);
        } catch (error) {
          if (!(error instanceof ExitRequest)) throw error;
          status = error.code;
        }
        input = concatBytes(pipe.chunks);
      }
    }
    return pipeline.negated ? Number(status === 0) : status;
  }

  async #command(command: SimpleCommand, stdin: Uint8Array, parentFds: Fds): Promise<number> {
    this.signal.throwIfAborted();
    const words = command.words.map((word) => this.#expand(word));
    const assigns = command.assigns.map(({ name, value }) => [name, this.#expand(value)] as const);
    if (words.length === 0) {
      for (const [name, value] of assigns) this.state.vars.set(name, value);
    }
    const fds: Fds = [...parentFds];
    const files: FileSink[] = [];
    try {
      stdin = await this.#redirect(command.redirects, stdin, fds, files);
    } catch (error) {
      parentFds[1].write(encoder.encode(`sh: ${messageOf(error)}\n`));
      return 1;
    }
    const output = new CommandOutput();
    let status = 0;
    let thrown: { error: unknown } | undefined;
    try {
      const name = words[0];
      if (name !== undefined) status = await this.#invoke(name, words.slice(1), assigns, stdin, output);
    } catch (error) {
      thrown = { error };
    }
    output.flush(fds);
    // A killed script's buffered file output is dropped: it must not land in the store after the exit event.
    if (!this.signal.aborted) {
      for (const file of files) {
        try {
          await file.close(this.fs);
        } catch (error) {
          parentFds[1].write(encoder.encode(`sh: ${messageOf(error)}\n`));
          status = 1;
        }
      }
    }
    if (thrown !== undefined) throw thrown.error;
    return status;
  }

  async #invoke(
    name: string,
    args: string[],
    assigns: (readonly [string, string])[],
    stdin: Uint8Array,
    output: CommandOutput,
  ): Promise<number> {
    const builtin = BUILTINS.get(name);
    if (builtin === undefined) {
      output.write(1, `sh: ${name}: command not found\n`);
      return 127;
    }
    // `X=1 cmd`: the assignments hold for this command only.
    const saved = assigns.map(([key]) => [key, this.state.vars.get(key)] as const);
    for (const [key, value] of assigns) this.state.vars.set(key, value);
    const state = this.state;
    const context: CommandContext = {
      fs: this.fs,
      stdin,
      signal: this.signal,
      get cwd() {
        return state.cwd;
      },
      set cwd(value) {
        state.cwd = value;
      },
      vars: state.vars,
      status: state.status,
      out: (data) => output.write(0, data),
      err: (data) => output.write(1, data),
    };
    try {
      return await builtin(args, context);
    } catch (error) {
      if (error instanceof ExitRequest || this.signal.aborted) throw error;
      output.write(1, `${name}: ${messageOf(error)}\n`);
      return 1;
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) state.vars.delete(key);
        else state.vars.set(key, value);
      }
    }
  }

  /** Applies redirections left to right (so `> f 2>&1` sends both to f) and returns the command's stdin. */
  async #redirect(redirects: Redirect[], stdin: Uint8Array, fds: Fds, files: FileSink[]): Promise<Uint8Array> {
    for (const redirect of redirects) {
      const target = this.#expand(redirect.target);
      if (redirect.op === ">&") {
        fds[redirect.fd - 1] = fds[Number(target) - 1] as Sink;
        continue;
      }
      if (target === "") throw new Error("ambiguous redirect");
      const path = resolvePath(this.state.cwd, target);
      if (redirect.op === "<") {
        stdin = await readBytes(this.fs, path);
        continue;
      }
      const file = new FileSink(path, redirect.op === ">>");
      await file.open(this.fs);
      files.push(file);
      if (redirect.fd !== 0) fds[redirect.fd - 1] = file;
    }
    return stdin;
  }

  #expand(word: Word): string {
    let text = "";
    for (const part of word) {
      if (part.kind === "text") text += part.text;
      else if (part.name === "?") text += String(this.state.status);
      else text += this.state.vars.get(part.name) ?? "";
    }
    return text;
  }
}

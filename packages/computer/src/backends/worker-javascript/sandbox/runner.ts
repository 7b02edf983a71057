/**
 * Runs inside the Dynamic Worker (bundled to `__computer/runner.js`, its main
 * module). One `run` per Worker: install the `process` shim and console
 * capture, import the user's entry module, call its default export with the
 * input, and report the JSON-plain result. Output goes to the host as it is
 * written, through the stream attached with `attachOutput`.
 *
 * Nothing here is a security boundary — the user's module shares this
 * isolate and can tamper with any of it. The host re-checks output size and
 * parses the result itself; capability checks are all on the host.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { jsonPlainProblem } from "../protocol/json.js";
import type { HostFunction, OutputFrame, RunOutcome, RunRequest } from "../protocol/messages.js";
import { StdioBudget, utf8Length } from "../protocol/stdio.js";
import { setHost } from "./bridge.js";

type Stream = "stdout" | "stderr";

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

function format(args: unknown[]): string {
  return `${args.map(describe).join(" ")}\n`;
}

class Output {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #budget: StdioBudget;
  readonly #encoder = new TextEncoder();
  #failed = false;

  constructor(writer: WritableStreamDefaultWriter<Uint8Array>, maxBytes: number) {
    this.#writer = writer;
    this.#budget = new StdioBudget(maxBytes);
  }

  write(stream: Stream, text: string): void {
    if (this.#failed || text === "") return;
    const kept = this.#budget.take(text);
    if (kept === "") return;
    const frame: OutputFrame = [stream, kept];
    // Not awaited: console.log is synchronous. The stream keeps the order; a
    // closed stream (the host canceled) just drops the rest.
    this.#writer.write(this.#encoder.encode(`${JSON.stringify(frame)}\n`)).catch(() => {
      this.#failed = true;
    });
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }
}

function installProcess(request: RunRequest, output: Output): void {
  const stdin = request.stdin;
  const writer = (stream: Stream) => ({
    isTTY: false,
    write(chunk: unknown): boolean {
      output.write(stream, typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array));
      return true;
    },
  });
  const bufferFrom = (globalThis as { Buffer?: { from(bytes: Uint8Array): Uint8Array } }).Buffer;
  const shim = {
    env: { ...request.env },
    argv: ["node", request.entry],
    execArgv: [] as string[],
    platform: "linux",
    arch: "x64",
    pid: 1,
    version: "v22.0.0",
    versions: {} as Record<string, string>,
    exitCode: undefined as number | undefined,
    cwd: () => request.cwd,
    nextTick: (fn: (...args: unknown[]) => void, ...args: unknown[]) => queueMicrotask(() => fn(...args)),
    stdout: writer("stdout"),
    stderr: writer("stderr"),
    stdin: {
      isTTY: false,
      async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
        if (stdin !== undefined && stdin.byteLength > 0) yield bufferFrom ? bufferFrom.from(stdin) : stdin;
      },
    },
  };
  Object.defineProperty(globalThis, "process", { value: shim, configurable: true, writable: true });
  const log =
    (stream: Stream) =>
    (...args: unknown[]) =>
      output.write(stream, format(args));
  const target = console as unknown as Record<string, unknown>;
  for (const name of ["log", "info", "debug", "trace"]) target[name] = log("stdout");
  for (const name of ["warn", "error"]) target[name] = log("stderr");
}

async function callDefault(request: RunRequest): Promise<unknown> {
  const module = (await import(request.entry)) as { default?: unknown };
  const input: unknown = JSON.parse(request.input);
  if (!("default" in module)) return null;
  const exported = module.default;
  const value =
    typeof exported === "function" ? await (exported as (input: unknown) => unknown)(input) : await exported;
  return value === undefined ? null : value;
}

function encodeResult(value: unknown, maxBytes: number): RunOutcome {
  const problem = jsonPlainProblem(value, "result");
  if (problem) return { ok: false, error: `The module's result must be plain, finite, acyclic JSON: ${problem}` };
  const json = JSON.stringify(value);
  if (utf8Length(json) > maxBytes) {
    return { ok: false, error: `The module's result is larger than maxResultBytes (${maxBytes} bytes)` };
  }
  return { ok: true, json };
}

export class Runner extends WorkerEntrypoint {
  async run(request: RunRequest, host: HostFunction): Promise<RunOutcome> {
    setHost(host);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const attached = host({ op: "attachOutput", stream: readable });
    const output = new Output(writable.getWriter(), request.maxStdioBytes);
    installProcess(request, output);
    let outcome: RunOutcome;
    try {
      outcome = encodeResult(await callDefault(request), request.maxResultBytes);
    } catch (error) {
      // The message alone, as both originals print a thrown error (a stack names our runner's internals).
      outcome = { ok: false, error: error instanceof Error ? error.message : describe(error) };
    }
    await output.close();
    await attached;
    return outcome;
  }
}

export default {
  fetch(): Response {
    return new Response("worker-javascript runner: call the Runner entrypoint", { status: 404 });
  },
};

/**
 * `exec`: runs a command on one of the workspace's backends and streams
 * snapshots of its output to the caller (the AI SDK forwards each yield of an
 * async-generator tool as a preliminary result; the last one is the result).
 * A handle that is async-iterable (a Workspace's is) is read event by event,
 * with a running snapshot at most once per 100 ms of the injected clock;
 * any other handle is awaited through `result()`. stdout/stderr are cut to
 * `maxBytes` on a UTF-8 boundary with `[truncated, N more bytes]`; at most
 * `streamMaxBytes` of each are held while the command runs, the rest is only
 * counted. Every output, errors included, names the command, cwd and backend.
 */
import type { Tool } from "ai";
import { z } from "zod";
import { utf8Length, utf8Prefix } from "../backends/worker-javascript/protocol/stdio.js";
import type { WorkspaceRuntimeTruncation } from "../runtime/output/options.js";
import { OutputTail, type TailLimits } from "../runtime/output/tail.js";
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import { tool } from "./define.js";
import { type TruncatedOutput, truncationOf, withSpillNote } from "./exec-spill.js";
import { truncateUtf8 } from "./truncate.js";
import type { ExecWorkspaceLike, ToolExecEvent, ToolExecHandle, ToolExecOptions } from "./types.js";

export const EXEC_MAX_BYTES = 64 * 1024;
export const EXEC_STREAM_MAX_BYTES = 512 * 1024;
export const EXEC_SNAPSHOT_INTERVAL_MS = 100;
export const EXEC_MAX_LINES = 2000;

export interface ExecBackendInfo {
  /** What the backend is good for; shown to the model. */
  description: string;
}

export interface ExecToolOptions {
  workspace: ExecWorkspaceLike;
  /**
   * The backends the model may use, with descriptions. Optional (ours): by
   * default every backend the runtime lists.
   */
  backends?: Record<string, ExecBackendInfo>;
  /** Default (ours): the first of `backends`. */
  defaultBackend?: string;
  /** Bytes of stdout and of stderr in a snapshot. Default 64 KiB. */
  maxBytes?: number;
  /** Bytes of stdout and of stderr held while the command runs. Default 512 KiB. */
  streamMaxBytes?: number;
  /**
   * Lines of stdout and of stderr kept (0.8.0; default 2000). When set, the
   * runtime is asked for the same limits (`output: { maxBytes, maxLines }`):
   * a stream past them is saved to a file and shown as its tail plus a note
   * naming the file.
   */
  maxLines?: number;
  /** Clock for the snapshot rate limit. Default `Date.now`. */
  now?: () => number;
}

/** A JSON value: what a callable backend's module takes as `input`. */
const jsonValue: z.ZodType<WorkspaceRuntimeValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

export interface ExecInput {
  command: string;
  cwd?: string;
  backend?: string;
  env?: Record<string, string>;
  input?: WorkspaceRuntimeValue;
}

/** Where an output came from: on every output, so the model can match it to its call. */
export interface ExecOrigin {
  command: string;
  cwd: string | null;
  backend: string;
}

export interface ExecSnapshot extends ExecOrigin {
  /** Null while the command runs (and when it ended without an exit code). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The return value of a callable backend, on the final snapshot. */
  result?: unknown;
  /** On the final snapshot: the streams the runtime cut, and where each was saved in full. */
  truncated?: WorkspaceRuntimeTruncation;
}

export interface ExecFailure extends ExecOrigin {
  error: string;
}

export type ExecOutput = ExecSnapshot | ExecFailure;

/**
 * Output of one stream: a bounded prefix plus the count of everything seen,
 * and its tail (`maxBytes`, `maxLines`), which is what is shown once the
 * runtime reports the stream cut and saved.
 */
class Collected {
  #text = "";
  #kept = 0;
  #total = 0;
  readonly #cap: number;
  readonly #decoder = new TextDecoder();
  readonly #tail: OutputTail;

  constructor(cap: number, tail: TailLimits) {
    this.#cap = cap;
    this.#tail = new OutputTail(tail);
  }

  /** The tail, with the runtime's note on where the whole stream went. */
  tailView(cut: TruncatedOutput): string {
    return withSpillNote(this.#tail.text(), cut);
  }

  add(value: string | Uint8Array): void {
    this.#tail.push(typeof value === "string" ? new TextEncoder().encode(value) : value);
    const chunk = typeof value === "string" ? value : this.#decoder.decode(value, { stream: true });
    const size = utf8Length(chunk);
    this.#total += size;
    if (this.#kept >= this.#cap) return;
    const part = this.#kept + size <= this.#cap ? chunk : utf8Prefix(chunk, this.#cap - this.#kept);
    this.#text += part;
    this.#kept += part === chunk ? size : utf8Length(part);
  }

  view(maxBytes: number): string {
    return truncateUtf8(this.#text, maxBytes, this.#total);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The backends on offer: the ones named, or (ours) every one the runtime lists. */
function backendsOf(options: ExecToolOptions): Record<string, ExecBackendInfo> {
  if (options.backends !== undefined) return options.backends;
  const listed = options.workspace.runtime.backends;
  if (listed === undefined) {
    throw new TypeError(
      "createExecTool needs backends: { <id>: { description } } for a runtime that does not list its own (a getWorkspace() client)",
    );
  }
  return Object.fromEntries(listed.map((id) => [id, { description: `Runs commands on the "${id}" backend.` }]));
}

export function createExecTool(options: ExecToolOptions): Tool<ExecInput, ExecOutput> {
  const runtime = options.workspace?.runtime;
  if (typeof runtime?.exec !== "function") throw new TypeError("createExecTool needs a workspace with a runtime");
  const backends = backendsOf(options);
  const ids = Object.keys(backends);
  if (ids.length === 0) throw new TypeError("createExecTool needs at least one backend");
  const defaultBackend = options.defaultBackend ?? (ids[0] as string);
  if (!ids.includes(defaultBackend)) {
    throw new TypeError(
      `defaultBackend ${JSON.stringify(defaultBackend)} is not one of the backends: ${ids.map((id) => JSON.stringify(id)).join(", ")}`,
    );
  }
  const callable = new Set(ids.filter((id) => runtime.isCallable?.(id) === true));
  const maxBytes = options.maxBytes ?? EXEC_MAX_BYTES;
  const streamMaxBytes = options.streamMaxBytes ?? EXEC_STREAM_MAX_BYTES;
  const now = options.now ?? Date.now;
  const maxLines = options.maxLines ?? EXEC_MAX_LINES;
  const tailLimits = { maxBytes, maxLines };
  const runtimeOutput = options.maxLines === undefined ? {} : { output: tailLimits };
  const lines = ids.map((id) => {
    const tags = [id === defaultBackend ? "default" : "", callable.has(id) ? "callable: takes input" : ""]
      .filter(Boolean)
      .join(", ");
    return `- ${id}${tags ? ` (${tags})` : ""}: ${(backends[id] as ExecBackendInfo).description}`;
  });
  const callableNote =
    callable.size > 0
      ? "\nOn a callable backend, `command` is the source of an ES module: `input` is handed to it, and what it " +
        "returns comes back as `result`. Other backends refuse `input`."
      : "";
  const inputSchema = z.object({
    command: z
      .string()
      .describe("The command line to run (for a callable backend: the module source), e.g. `npm test`."),
    cwd: z.string().optional().describe("Working directory (default: the workspace root)."),
    backend: z
      .enum(ids as [string, ...string[]])
      .optional()
      .describe(`The backend to run on (default ${defaultBackend}); pick another when this one lacks a command.`),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe("Environment variables for this command only, over the backend's own."),
    input: jsonValue.optional().describe("A JSON value for a callable backend's module; other backends refuse it."),
  });

  return tool({
    description:
      `Run a command in the workspace. Backends:\n${lines.join("\n")}\n` +
      "Start with the default; if a command is not found on one backend, retry it on another whose description " +
      `covers it. Prefer read, write and edit for files. stdout and stderr are cut to ${maxBytes} bytes each.` +
      callableNote,
    inputSchema,
    execute: async function* (input, { abortSignal }): AsyncGenerator<ExecOutput> {
      const backend = input.backend ?? defaultBackend;
      const origin: ExecOrigin = { command: input.command, cwd: input.cwd ?? null, backend };
      if (input.input !== undefined && !callable.has(backend)) {
        const others = ids.filter((id) => callable.has(id));
        yield {
          ...origin,
          error: `Backend "${backend}" is not callable: it does not take input. Callable backends: ${others.join(", ") || "none"}`,
        };
        return;
      }
      const execOptions: ToolExecOptions = {
        backend,
        encoding: "utf8",
        ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
        ...(input.env === undefined ? {} : { env: input.env }),
        ...(input.input === undefined ? {} : { input: input.input }),
        ...runtimeOutput,
      };
      let handle: ToolExecHandle;
      try {
        handle = await runtime.exec(input.command, execOptions);
      } catch (error) {
        yield { ...origin, error: message(error) };
        return;
      }
      const kill = (): void => void handle.kill?.().catch(() => {});
      if (abortSignal?.aborted) kill();
      else abortSignal?.addEventListener("abort", kill, { once: true });
      try {
        const events = handle[Symbol.asyncIterator];
        if (typeof events !== "function") {
          try {
            const result = await handle.result();
            const stdout = new Collected(streamMaxBytes, tailLimits);
            const stderr = new Collected(streamMaxBytes, tailLimits);
            stdout.add(result.stdout);
            stderr.add(result.stderr);
            const cut = truncationOf(result.truncated);
            yield {
              ...origin,
              exitCode: result.exitCode,
              stdout: cut?.stdout ? stdout.tailView(cut.stdout) : stdout.view(maxBytes),
              stderr: cut?.stderr ? stderr.tailView(cut.stderr) : stderr.view(maxBytes),
              ...(result.value === undefined ? {} : { result: result.value }),
              ...(cut ? { truncated: cut } : {}),
            };
          } catch (error) {
            yield { ...origin, error: message(error) };
          }
          return;
        }
        const stdout = new Collected(streamMaxBytes, tailLimits);
        const stderr = new Collected(streamMaxBytes, tailLimits);
        let exit: Extract<ToolExecEvent, { name: "exit" }> | undefined;
        let lastSnapshot = 0;
        try {
          for await (const event of { [Symbol.asyncIterator]: () => events.call(handle) }) {
            if (event.name === "exit") {
              exit = event;
              continue;
            }
            (event.name === "stdout" ? stdout : stderr).add(event.value);
            const at = now();
            if (at - lastSnapshot < EXEC_SNAPSHOT_INTERVAL_MS) continue;
            lastSnapshot = at;
            yield { ...origin, exitCode: null, stdout: stdout.view(maxBytes), stderr: stderr.view(maxBytes) };
          }
        } catch (error) {
          yield { ...origin, error: message(error) };
          return;
        }
        const cut = truncationOf(exit?.truncated);
        yield {
          ...origin,
          exitCode: exit?.code ?? null,
          stdout: cut?.stdout ? stdout.tailView(cut.stdout) : stdout.view(maxBytes),
          stderr: cut?.stderr ? stderr.tailView(cut.stderr) : stderr.view(maxBytes),
          ...(exit !== undefined && "result" in exit ? { result: exit.result } : {}),
          ...(cut ? { truncated: cut } : {}),
        };
      } finally {
        abortSignal?.removeEventListener("abort", kill);
      }
    },
  });
}

/**
 * `exec`: runs a command on one of the workspace's backends and streams
 * snapshots of its output to the caller (the AI SDK forwards each yield of an
 * async-generator tool as a preliminary result; the last one is the result).
 * Snapshots are rate-limited to one per 100 ms of the injected clock, and
 * stdout/stderr are cut to `maxBytes` on a UTF-8 boundary with
 * `[truncated, N more bytes]`; at most `streamMaxBytes` of each are buffered
 * while the command runs, the rest is only counted.
 */
import { type Tool, tool } from "ai";
import { z } from "zod";
import { utf8Length, utf8Prefix } from "../backends/worker-javascript/protocol/stdio.js";
import { statusForExitCode } from "../runtime/status.js";
import type { ExecStatus } from "../runtime/types.js";
import { toolError } from "./errors.js";
import { truncateUtf8 } from "./truncate.js";
import type { ToolError, ToolExecHandle, ToolRuntime, ToolWorkspace } from "./types.js";

export const EXEC_MAX_BYTES = 64 * 1024;
export const EXEC_STREAM_MAX_BYTES = 512 * 1024;
export const EXEC_SNAPSHOT_INTERVAL_MS = 100;

export interface ExecBackendInfo {
  /** What the backend is good for; shown to the model. */
  description: string;
}

export interface ExecToolOptions {
  /** The backends the model may use, with descriptions. Default: every backend of the runtime. */
  backends?: Record<string, ExecBackendInfo>;
  /** Default: the first of `backends`. */
  defaultBackend?: string;
  /** Bytes of stdout and of stderr in a snapshot. Default 64 KiB. */
  maxBytes?: number;
  /** Bytes of stdout and of stderr kept in memory while the command runs. Default 512 KiB. */
  streamMaxBytes?: number;
  /** Clock for the snapshot rate limit. */
  now?: () => number;
}

const execInputBase = {
  command: z.string().min(1).describe("The command (a shell command line, or source for a callable backend)."),
  cwd: z.string().optional().describe("Absolute working directory (default: the backend's, usually /workspace)."),
  env: z.record(z.string(), z.string()).optional().describe("Extra environment variables."),
  input: z.unknown().optional().describe("JSON input; only for backends marked callable."),
};

export interface ExecInput {
  command: string;
  cwd?: string | undefined;
  backend?: string | undefined;
  env?: Record<string, string> | undefined;
  input?: unknown;
}

export interface ExecSnapshot {
  command: string;
  cwd: string | null;
  backend: string;
  /** Null while the command runs. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** On the final snapshot. */
  status?: ExecStatus;
  /** The return value of a callable backend, on the final snapshot. */
  result?: unknown;
}

export type ExecOutput = ExecSnapshot | ToolError;

/** Output of one stream: a bounded buffer plus the count of everything seen. */
class Collected {
  text = "";
  bytes = 0;
  readonly #cap: number;
  readonly #decoder = new TextDecoder();
  #kept = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  add(value: string | Uint8Array): void {
    const chunk = typeof value === "string" ? value : this.#decoder.decode(value, { stream: true });
    const size = utf8Length(chunk);
    if (this.#kept < this.#cap) {
      const part = this.#kept + size <= this.#cap ? chunk : utf8Prefix(chunk, this.#cap - this.#kept);
      this.text += part;
      this.#kept += part === chunk ? size : utf8Length(part);
    }
    this.bytes += size;
  }

  view(maxBytes: number): string {
    return truncateUtf8(this.text, maxBytes, this.bytes);
  }
}

export function createExecTool(options: { workspace: ToolWorkspace } & ExecToolOptions): Tool<ExecInput, ExecOutput> {
  const runtime: ToolRuntime | undefined = options.workspace.runtime;
  if (!runtime) throw new TypeError("createExecTool needs a workspace with a runtime");
  const listed = runtime.backends;
  if (options.backends === undefined && listed === undefined) {
    throw new TypeError(
      "createExecTool needs backends: { <id>: { description } } for a runtime that does not list its own (a getWorkspace() client)",
    );
  }
  const backends =
    options.backends ??
    Object.fromEntries((listed ?? []).map((id) => [id, { description: `Runs commands on the "${id}" backend.` }]));
  const isCallable = (id: string): boolean => runtime.isCallable?.(id) ?? false;
  const ids = Object.keys(backends);
  if (ids.length === 0) throw new TypeError("createExecTool needs at least one backend");
  const defaultBackend = options.defaultBackend ?? (ids[0] as string);
  if (!(defaultBackend in backends)) {
    throw new TypeError(
      `defaultBackend ${JSON.stringify(defaultBackend)} is not one of the backends: ${ids.join(", ")}`,
    );
  }
  const maxBytes = options.maxBytes ?? EXEC_MAX_BYTES;
  const streamMaxBytes = Math.max(options.streamMaxBytes ?? EXEC_STREAM_MAX_BYTES, maxBytes);
  const now = options.now ?? Date.now;
  const lines = ids.map((id) => {
    const tags = [id === defaultBackend ? "default" : "", isCallable(id) ? "callable: takes input" : ""]
      .filter(Boolean)
      .join(", ");
    return `- ${id}${tags ? ` (${tags})` : ""}: ${(backends[id] as ExecBackendInfo).description}`;
  });
  const inputSchema = z.object({
    ...execInputBase,
    backend: z
      .enum(ids as [string, ...string[]])
      .optional()
      .describe(`Backend to run on (default ${defaultBackend}).`),
  });

  return tool({
    description:
      `Run a command in the workspace. Backends:\n${lines.join("\n")}\n` +
      "If a command is not found on one backend, retry it on another. " +
      `stdout and stderr are cut to ${maxBytes} bytes each.`,
    inputSchema,
    execute: async function* (input, { abortSignal }): AsyncGenerator<ExecOutput> {
      const backend = input.backend ?? defaultBackend;
      if (input.input !== undefined && !isCallable(backend)) {
        yield {
          error: `Backend "${backend}" is not callable: it does not take input. Callable backends: ${ids.filter((id) => isCallable(id)).join(", ") || "none"}`,
        };
        return;
      }
      const base = { command: input.command, cwd: input.cwd ?? null, backend };
      let handle: ToolExecHandle;
      try {
        handle = await runtime.exec(input.command, {
          backend,
          encoding: "utf8",
          ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
          ...(input.env === undefined ? {} : { env: input.env }),
          ...(input.input === undefined ? {} : { input: input.input }),
        });
      } catch (error) {
        yield toolError(error);
        return;
      }
      const kill = (): void => void handle.kill().catch(() => {});
      if (abortSignal?.aborted) kill();
      abortSignal?.addEventListener("abort", kill, { once: true });
      const stdout = new Collected(streamMaxBytes);
      const stderr = new Collected(streamMaxBytes);
      try {
        if (typeof handle.getReader !== "function") {
          const result = await handle.result();
          stdout.add(result.stdout);
          stderr.add(result.stderr);
          yield {
            ...base,
            exitCode: result.exitCode,
            status: result.status,
            stdout: stdout.view(maxBytes),
            stderr: stderr.view(maxBytes),
            ...(result.value === undefined ? {} : { result: result.value }),
          };
          return;
        }
        const reader = handle.getReader();
        let exitCode = -1;
        let value: unknown;
        let lastSnapshot = Number.NEGATIVE_INFINITY;
        for (;;) {
          const { done, value: event } = await reader.read();
          if (done) break;
          if (event.name === "exit") {
            exitCode = event.code;
            value = event.result;
            continue;
          }
          (event.name === "stdout" ? stdout : stderr).add(event.value);
          const at = now();
          if (at - lastSnapshot >= EXEC_SNAPSHOT_INTERVAL_MS) {
            lastSnapshot = at;
            yield { ...base, exitCode: null, stdout: stdout.view(maxBytes), stderr: stderr.view(maxBytes) };
          }
        }
        yield {
          ...base,
          exitCode,
          status: statusForExitCode(exitCode),
          stdout: stdout.view(maxBytes),
          stderr: stderr.view(maxBytes),
          ...(value === undefined ? {} : { result: value }),
        };
      } catch (error) {
        yield toolError(error);
      } finally {
        abortSignal?.removeEventListener("abort", kill);
      }
    },
  });
}

/**
 * `@cloudflare/computer/modules/container` (Experimental, as in 0.8.0):
 * `createContainerModule()`, the `ws:container` host module. Code in the
 * JavaScript isolate runs a shell command on the Workspace's container
 * backend and gets `{ exitCode, stdout, stderr, truncated?, sync }` once it
 * ends. A non-zero exit is a value, not an error; cancelling the run kills the
 * command; the command's time is capped by what is left of the host call.
 * Network follows the container's own egress, not the isolate's.
 */
import type { ExecResult, ExecSyncResult, WorkspaceRuntimeValue } from "../runtime/types.js";
import type {
  WorkspaceModuleCallContext,
  WorkspaceModuleFactory,
  WorkspaceModuleFunctions,
  WorkspaceModuleHost,
} from "./types.js";

export interface ContainerModuleOptions {
  /** The container backend's id. Default `"container-shell"`. */
  readonly backend?: string;
  /** Bytes of each stream handed back (its tail). Default 64 KiB; a positive integer. */
  readonly maxOutputBytes?: number;
  /** Lines of each stream handed back (its tail). Default 2000; a positive integer. */
  readonly maxOutputLines?: number;
  /** A line run before every command (e.g. `set -e` or `cd /workspace/app`); ignored when blank. */
  readonly prelude?: string;
}

const EXEC_KEYS = new Set(["cwd", "env", "stdin", "timeoutMs"]);
const MAX_SKIPPED_PATHS = 100;
const MAX_SYNC_ERROR_BYTES = 1024;

const DESCRIPTION = [
  "Runs shell commands in a full Linux container that shares this workspace's files: npm, node, python, package managers and native binaries. The first use may take a while to start the container.",
  'Call `const { exitCode, stdout, stderr } = await exec("npm test", { cwd: "/workspace" })`; the options are `cwd`, `env`, `stdin` and `timeoutMs`.',
  "Output comes back when the command ends; long output keeps its last lines. A non-zero `exitCode` is returned, not thrown.",
  "`sync.status` is `pending` when the container's file changes have not reached the workspace yet; do not write files the command also writes while it runs.",
].join(" ");

interface ExecRequest {
  command: string;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutMs?: number;
}

function parseExec(args: readonly WorkspaceRuntimeValue[]): ExecRequest {
  if (args.length === 0 || args.length > 2) {
    throw new TypeError("exec(command, options?) takes a command and an optional options object.");
  }
  const [command, options] = args;
  if (typeof command !== "string" || command.trim() === "")
    throw new TypeError("exec: command must be a non-empty string.");
  if (options === undefined || options === null) return { command };
  if (typeof options !== "object" || Array.isArray(options)) throw new TypeError("exec: options must be an object.");
  const request: ExecRequest = { command };
  for (const [key, value] of Object.entries(options)) {
    if (!EXEC_KEYS.has(key))
      throw new TypeError(`exec: unknown option ${JSON.stringify(key)}. Use cwd, env, stdin, or timeoutMs.`);
    if (value === null) continue;
    if (key === "timeoutMs") {
      if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
        throw new TypeError("exec: timeoutMs must be a positive number.");
      }
      request.timeoutMs = value;
    } else if (key === "env") {
      if (typeof value !== "object" || Array.isArray(value))
        throw new TypeError("exec: env must be an object of strings.");
      const env: Record<string, string> = {};
      for (const [name, entry] of Object.entries(value)) {
        if (typeof entry !== "string") throw new TypeError(`exec: env ${JSON.stringify(name)} must be a string.`);
        env[name] = entry;
      }
      request.env = env;
    } else {
      if (typeof value !== "string") throw new TypeError(`exec: ${key} must be a string.`);
      request[key as "cwd" | "stdin"] = value;
    }
  }
  return request;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The tail of `text` within both limits, with a bracketed note saying what is shown when anything was cut. */
export function keepTail(text: string, maxLines: number, maxBytes: number): string {
  const lines = text.split("\n");
  const trailingNewline = text.endsWith("\n");
  const total = trailingNewline ? lines.length - 1 : lines.length;
  let kept = text;
  let firstLine = 1;
  if (total > maxLines) {
    firstLine = total - maxLines + 1;
    kept = lines.slice(firstLine - 1).join("\n");
  }
  const bytes = encoder.encode(kept);
  let partial = false;
  if (bytes.byteLength > maxBytes) {
    // Cut on a character boundary: skip UTF-8 continuation bytes at the cut.
    let start = bytes.byteLength - maxBytes;
    while (start < bytes.byteLength && ((bytes[start] as number) & 0xc0) === 0x80) start++;
    const dropped = decoder.decode(bytes.subarray(0, start));
    firstLine += dropped.split("\n").length - 1;
    partial = !dropped.endsWith("\n");
    kept = decoder.decode(bytes.subarray(start));
  }
  if (kept === text) return text;
  const shown = partial ? `the end of line ${firstLine} onwards` : `lines ${firstLine}-${total} of ${total}`;
  return `[truncated, showing ${shown}]\n\n${kept}`;
}

function cap(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  return bytes.byteLength <= maxBytes ? text : `${decoder.decode(bytes.subarray(0, maxBytes - 3))}...`;
}

function syncSummary(sync: ExecSyncResult): WorkspaceRuntimeValue {
  return {
    status: sync.status,
    skipped: sync.skipped.slice(0, MAX_SKIPPED_PATHS).map((entry) => entry.path),
    skippedCount: sync.skipped.length,
    ...(sync.status === "pending" && typeof sync.error === "string"
      ? { error: cap(sync.error, MAX_SYNC_ERROR_BYTES) }
      : {}),
  };
}

/** The runtime's backend ids and, where it lists them, their protocols (`backends()` in 0.8, a list of ids before). */
function findBackend(host: WorkspaceModuleHost, id: string): { protocol?: string } | undefined {
  const listed = (host.runtime as unknown as { backends: unknown }).backends;
  const infos = typeof listed === "function" ? (listed.call(host.runtime) as unknown[]) : (listed as unknown[]);
  for (const info of infos ?? []) {
    if (info === id) return {};
    if (typeof info === "object" && info !== null && (info as { id?: unknown }).id === id)
      return info as { protocol?: string };
  }
  return undefined;
}

function remainingMs(requested: number | undefined, context: WorkspaceModuleCallContext): number {
  const left = context.deadline - Date.now();
  if (left <= 0) throw new Error("exec: the host call deadline has already passed.");
  return requested === undefined ? left : Math.min(requested, left);
}

export function createContainerModule(options: ContainerModuleOptions = {}): WorkspaceModuleFactory {
  const backend = options.backend ?? "container-shell";
  const maxBytes = options.maxOutputBytes ?? 65_536;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new Error("createContainerModule: maxOutputBytes must be a positive integer.");
  }
  const maxLines = options.maxOutputLines ?? 2000;
  if (!Number.isSafeInteger(maxLines) || maxLines <= 0) {
    throw new Error("createContainerModule: maxOutputLines must be a positive integer.");
  }
  const prelude = options.prelude;
  if (prelude !== undefined && typeof prelude !== "string")
    throw new Error("createContainerModule: prelude must be a string.");
  const withPrelude = (command: string): string =>
    prelude === undefined || prelude.trim() === "" ? command : `${prelude}\n${command}`;

  const factory = (host: WorkspaceModuleHost): WorkspaceModuleFunctions => {
    const target = findBackend(host, backend);
    if (target === undefined) {
      throw new Error(
        `ws:container: the Workspace has no backend ${JSON.stringify(backend)}. Register a container backend, or pass createContainerModule({ backend }).`,
      );
    }
    if (target.protocol === "module") {
      throw new Error(`ws:container: backend ${JSON.stringify(backend)} runs module source, not shell commands.`);
    }
    return {
      async exec(args, context) {
        if (context.access !== "read-write") throw new Error("ws:container exec requires Workspace write access.");
        const request = parseExec(args);
        const timeoutMs = remainingMs(request.timeoutMs, context);
        context.signal.throwIfAborted();
        const handle = await host.runtime.exec(withPrelude(request.command), {
          backend,
          encoding: "utf8",
          timeoutMs,
          ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
          ...(request.env === undefined ? {} : { env: request.env }),
          ...(request.stdin === undefined ? {} : { stdin: request.stdin }),
        });
        const kill = (): void => void handle.kill().catch(() => undefined);
        if (context.signal.aborted) kill();
        else context.signal.addEventListener("abort", kill, { once: true });
        try {
          const result = (await handle.result()) as ExecResult<"utf8"> & { truncated?: WorkspaceRuntimeValue };
          return {
            exitCode: result.exitCode,
            stdout: keepTail(result.stdout, maxLines, maxBytes),
            stderr: keepTail(result.stderr, maxLines, maxBytes),
            ...(result.truncated === undefined ? {} : { truncated: result.truncated }),
            sync: syncSummary(result.sync),
          };
        } finally {
          context.signal.removeEventListener("abort", kill);
        }
      },
    };
  };
  return Object.assign(factory, { description: DESCRIPTION });
}

/**
 * `ShellWorker`: the entrypoint of the Dynamic Worker a `WorkerShellBackend`
 * loads. It runs here, not in the host: `scripts/build-sandboxes.mjs`
 * bundles this folder (with just-bash) into the module strings the backend
 * hands to the Worker Loader.
 *
 * Each exec asks `env.HOST` (a `WorkspaceServiceProxy` of the host) for a
 * fresh Workspace stub, so its filesystem calls land in the Durable Object's
 * own request context, and builds a new just-bash `Bash` over it. The run is
 * buffered: when it settles the stream carries one stdout frame, one stderr
 * frame (if any) and the exit frame (../protocol/messages.ts), and the stub is disposed.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { Bash, type CommandName, type CustomCommand, getCommandNames } from "just-bash";
import { fsError } from "../protocol/errors.js";
import {
  encodeFrame,
  KILLED_EXIT_CODE,
  KILLED_MESSAGE,
  SHELL_DEFAULT_CWD,
  SHELL_GROUP_COMMANDS,
  SHELL_OUTPUT_LIMIT_BYTES,
  SHELL_UNAVAILABLE_COMMANDS,
  type ShellExecArgs,
  type ShellExecReply,
  type ShellFrame,
  TIMED_OUT_EXIT_CODE,
  TIMED_OUT_MESSAGE,
} from "../protocol/messages.js";
import { defineArtifactsCommand, type ShellArtifactsLike } from "./commands/artifacts.js";
import { defineAssetsCommand, type ShellAssetsLike } from "./commands/assets.js";
import { defineGitCommand, type ShellGitLike } from "./commands/git.js";
import { defineUnavailableCommands } from "./commands/unavailable.js";
import { workerFetch } from "./fetch.js";
import { WorkspaceFsAdapter, type WorkspaceFsLike } from "./fs-adapter.js";

/** A Workspace stub as the shell uses it (`WorkspaceStub` over RPC). */
export interface ShellWorkspace {
  readonly fs: WorkspaceFsLike;
  readonly git: ShellGitLike;
  /** Undefined when the workspace has none, which RPC cannot read ("does not implement"): see `assetsOrNull`. */
  readonly assets?: ShellAssetsLike;
  /** `assets`, or null when the workspace has none. */
  readonly assetsOrNull: ShellAssetsLike | null;
  readonly artifacts: ShellArtifactsLike;
  [Symbol.dispose]?(): void;
}

export interface ShellWorkerEnv {
  /** `ctx.exports.WorkspaceServiceProxy({ props })` of the host. */
  HOST: { getWorkspace(): Promise<ShellWorkspace> };
  /** Commands of the optional groups the host loaded (protocol.ts `SHELL_GROUP_COMMANDS`). */
  SHELL_COMMANDS?: string[];
}

export interface ShellWorkerOptions {
  /** Default working directory of a run; `/workspace` unless set. */
  cwd?: string;
  /** `null` leaves curl without a fetch (it then reports that networking is off). */
  fetch?: typeof fetch | null;
}

type Stop = { code: number; message: string };

/** Executions running in this isolate, by id. One Dynamic Worker serves one workspace and egress mode. */
const running = new Set<string>();
/**
 * Kills asked for by `killExec`. That call is another request, and workerd
 * refuses to touch one request's I/O objects (the run's AbortSignal, its
 * timers) from another, so the run polls this set from its own context.
 */
const killed = new Set<string>();
/** How often a run looks for a kill, ms. Only while it runs; a run that never yields is bounded by just-bash's budgets. */
const KILL_POLL_MS = 20;

function busy(id: string): Error {
  return Object.assign(new Error(`EEXEC_BUSY: exec is busy, exec '${id}'`), { code: "EEXEC_BUSY", path: id });
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return text;
}

/** just-bash's own commands: core, plus the optional groups' that are enabled; never the unavailable ones. */
function optionalCommands(enabled: readonly string[]): CommandName[] {
  const optional = new Set<string>(Object.values(SHELL_GROUP_COMMANDS).flat());
  const unavailable = new Set(SHELL_UNAVAILABLE_COMMANDS);
  const on = new Set(enabled);
  return getCommandNames().filter(
    (name) => !unavailable.has(name) && (!optional.has(name) || on.has(name)),
  ) as CommandName[];
}

export class ShellWorker extends WorkerEntrypoint<ShellWorkerEnv> {
  /** Subclasses may set a default cwd or turn curl's fetch off. */
  protected shellOptions: ShellWorkerOptions = {};

  /** Commands a subclass adds after the built-in `git`, `assets` and `artifacts`. */
  protected extraCommands(_ws: ShellWorkspace): CustomCommand[] {
    return [];
  }

  async exec(args: ShellExecArgs): Promise<ShellExecReply> {
    const id = args.id ?? crypto.randomUUID();
    if (running.has(id)) throw busy(id);
    running.add(id);
    killed.delete(id);
    const frames = this.#run(id, args).finally(() => {
      running.delete(id);
      killed.delete(id);
    });
    this.ctx.waitUntil(frames.catch(() => {}));
    const encoder = new TextEncoder();
    const events = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          controller.enqueue(encoder.encode((await frames).map(encodeFrame).join("")));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { id, events };
  }

  /** A run is one buffered call: there is nothing to reattach to. */
  async getExec(args: { id: string }): Promise<ShellExecReply> {
    throw fsError("ENOENT", "exec", args.id);
  }

  /** Stops a running exec (exit 130). An unknown id is not an error: it may have just finished. */
  async killExec(args: { id: string; signal?: string }): Promise<void> {
    if (running.has(args.id)) killed.add(args.id);
  }

  /** Nothing is retained after a run. */
  async disposeExec(_args: { id: string }): Promise<void> {}

  override async fetch(): Promise<Response> {
    return new Response("ShellWorker speaks Workers RPC only\n", { status: 426 });
  }

  async #run(id: string, args: ShellExecArgs): Promise<ShellFrame[]> {
    const control = new AbortController();
    const stopped = new Promise<Stop>((resolve) => {
      control.signal.addEventListener("abort", () => resolve(control.signal.reason as Stop), { once: true });
    });
    const timer =
      args.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => control.abort({ code: TIMED_OUT_EXIT_CODE, message: TIMED_OUT_MESSAGE } satisfies Stop),
            args.timeoutMs,
          );
    const poll = setInterval(() => {
      if (killed.has(id)) control.abort({ code: KILLED_EXIT_CODE, message: KILLED_MESSAGE } satisfies Stop);
    }, KILL_POLL_MS);
    let ws: ShellWorkspace | undefined;
    let work: Promise<unknown> = Promise.resolve();
    try {
      ws = await this.env.HOST.getWorkspace();
      const running = this.#bash(ws, args, control.signal);
      work = running;
      const outcome = await Promise.race([running, stopped]);
      if ("message" in outcome) return this.#frames(id, "", `${outcome.message}\n`, outcome.code);
      return this.#frames(id, outcome.stdout, outcome.stderr, outcome.exitCode, outcome.bytes);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return this.#frames(id, "", `${message}\n`, 1);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      clearInterval(poll);
      // A stopped run ends at its next statement; until then its file calls must keep working
      // (on a disposed stub every call fails at once, and a failing loop spins without yielding).
      const stub = ws;
      const release = (): void => {
        try {
          stub?.[Symbol.dispose]?.();
        } catch {}
      };
      this.ctx.waitUntil(work.then(release, release));
    }
  }

  async #bash(
    ws: ShellWorkspace,
    args: ShellExecArgs,
    signal: AbortSignal,
  ): Promise<{ stdout: string; stderr: string; exitCode: number; bytes: boolean }> {
    const cwd = args.cwd ?? this.shellOptions.cwd ?? SHELL_DEFAULT_CWD;
    const enabled = this.env.SHELL_COMMANDS ?? [];
    const custom: CustomCommand[] = [
      defineGitCommand(ws),
      // Read when the command runs, through the read RPC can answer for a workspace without assets.
      defineAssetsCommand({
        get assets() {
          return ws.assetsOrNull;
        },
      }),
      defineArtifactsCommand(ws),
      // The python, sqlite and js-exec groups' commands, when given: each fails saying why; a subclass may replace them.
      ...defineUnavailableCommands(enabled),
      ...this.extraCommands(ws),
    ];
    const fetcher = this.shellOptions.fetch === null ? undefined : (this.shellOptions.fetch ?? fetch);
    const bash = new Bash({
      fs: new WorkspaceFsAdapter(ws.fs),
      cwd,
      env: { HOME: SHELL_DEFAULT_CWD, ...args.env },
      commands: optionalCommands(enabled),
      customCommands: custom,
      executionLimits: { maxOutputSize: SHELL_OUTPUT_LIMIT_BYTES },
      defenseInDepth: false,
      ...(enabled.includes("curl") && fetcher ? { fetch: workerFetch(fetcher) } : {}),
    });
    const result = await bash.exec(args.command, {
      cwd,
      rawScript: true,
      signal,
      ...(args.stdin && args.stdin.byteLength > 0 ? { stdin: latin1(args.stdin), stdinKind: "bytes" as const } : {}),
    });
    return {
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.exitCode,
      bytes: result.stdoutKind === "bytes" || result.stdoutEncoding === "binary",
    };
  }

  #frames(id: string, stdout: string, stderr: string, code: number, bytes = false): ShellFrame[] {
    const frames: ShellFrame[] = [];
    let seq = 0;
    if (stdout !== "") {
      frames.push(
        bytes
          ? { id, seq: ++seq, name: "stdout", value: btoa(stdout), enc: "b64" }
          : { id, seq: ++seq, name: "stdout", value: stdout },
      );
    }
    if (stderr !== "") frames.push({ id, seq: ++seq, name: "stderr", value: stderr });
    frames.push({ id, seq: ++seq, name: "exit", code });
    return frames;
  }
}

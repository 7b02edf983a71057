/**
 * `ShellWorker`: the entrypoint that runs shell commands with just-bash over
 * a Workspace. The Dynamic Worker a `WorkerShellBackend` loads runs it:
 * `scripts/build-sandboxes.mjs` bundles this folder (with just-bash) into the
 * module strings the backend hands to the Worker Loader. The same bundle,
 * written as importable modules, is what `@cloudflare/computer/backends/worker-shell`
 * exports, so a Worker may also export it (or a subclass with `extraCommands`)
 * as its own entrypoint and give it to the backend as an `external-runtime`
 * source (docs/worker-shell.md, "Your own ShellWorker").
 *
 * Each exec reaches the Workspace afresh, so its filesystem calls land in the
 * Durable Object's own request context: through `env.HOST` (a
 * `WorkspaceServiceProxy` of the host, what the backend gives a Dynamic
 * Worker), or else through the props `{ binding, id }` naming the object in
 * this Worker's env (`ctx.exports.MyShell({ props })`). It builds a new
 * just-bash `Bash` over it. The run is buffered: when it settles the stream
 * carries one stdout frame, one stderr frame (if any) and the exit frame
 * (../protocol/messages.ts), and the stub is disposed.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { Bash, type CommandName, type CustomCommand, getCommandNames, type SecureFetch } from "just-bash";
import { fsError, rpcError } from "../protocol/errors.js";
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

/** What hands the shell its Workspace: `WorkspaceServiceProxy` (ours and the original's). */
export interface ShellHost {
  getWorkspace(): Promise<ShellWorkspace>;
}

export interface ShellWorkerEnv {
  /**
   * `ctx.exports.WorkspaceServiceProxy({ props })` of the host, as the backend gives a Dynamic Worker.
   * Without it the props `{ binding, id }` name the Durable Object in this env.
   */
  HOST?: ShellHost;
  /**
   * Commands of the optional groups the host loaded (protocol.ts `SHELL_GROUP_COMMANDS`). Unset (a
   * Worker's own ShellWorker, which bundles all of just-bash), every group's commands are on.
   */
  SHELL_COMMANDS?: string[];
}

/** A `ShellWorker` entrypoint's props when it has no `env.HOST`: the `withWorkspace` object to work in. */
export interface ShellWorkerProps {
  /** Name of the Durable Object namespace binding in this Worker's env. */
  binding: string;
  /** The object's id, as `id.toString()` gives it. */
  id: string;
}

export interface ShellWorkerOptions {
  /** Default working directory of a run; `/workspace` unless set. */
  cwd?: string;
  /**
   * What curl fetches with (just-bash's `SecureFetch`); by default the Worker's own `fetch`, so a Dynamic
   * Worker's `globalOutbound` decides what it reaches. `null` leaves curl without one.
   */
  fetch?: SecureFetch | null;
}

/** What `bashFactoryOverride` is given: the run's settings and the custom commands `Bash` would get. */
export interface ShellRunOptions {
  cwd?: string;
  env?: Record<string, string>;
  stdin?: Uint8Array;
  signal?: AbortSignal;
  customCommands: CustomCommand[];
}

/** What a run (or `bashFactoryOverride`) answers: the output as text and the exit status. */
export interface ShellRunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

type Stop = { code: number; message: string };

/**
 * Executions running in this isolate, by workspace and id. One Dynamic Worker serves one workspace; a
 * Worker's own ShellWorker may serve many, told apart by its props.
 */
const running = new Set<string>();
/**
 * Kills asked for by `killExec`. That call is another request, and workerd
 * refuses to touch one request's I/O objects (the run's AbortSignal, its
 * timers) from another, so the run polls this set from its own context.
 */
const killed = new Set<string>();
/** How often a run looks for a kill, ms. Only while it runs; a run that never yields is bounded by just-bash's budgets. */
const KILL_POLL_MS = 20;

/** Every optional group's commands: what a ShellWorker outside a loaded Dynamic Worker has. */
const ALL_GROUP_COMMANDS: readonly string[] = Object.values(SHELL_GROUP_COMMANDS).flat();

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

/**
 * `Env` is the Worker's env when a subclass is exported from a Worker of its own: the entrypoint reads
 * only `HOST` and `SHELL_COMMANDS` of it (and, without `HOST`, the namespace its props name).
 */
export class ShellWorker<Env = ShellWorkerEnv> extends WorkerEntrypoint<Env> {
  /** Subclasses may set a default cwd or curl's fetch (`null`: none). */
  protected readonly shellOptions: ShellWorkerOptions = {};

  /**
   * Runs the command instead of just-bash when set (the original's seam, for tests of a subclass): given
   * the command and the run's settings, with the custom commands `Bash` would have had.
   */
  protected bashFactoryOverride: ((command: string, options: ShellRunOptions) => Promise<ShellRunResult>) | undefined;

  /**
   * Commands a subclass adds after the built-in `git`, `assets` and `artifacts`, per exec, with the
   * Workspace stub the run works in (alive until the run settles).
   */
  protected extraCommands(_ws: ShellWorkspace): CustomCommand[] {
    return [];
  }

  async exec(args: ShellExecArgs): Promise<ShellExecReply> {
    const id = args.id ?? crypto.randomUUID();
    const key = this.#key(id);
    if (running.has(key)) throw rpcError("EEXEC_BUSY", "exec", id);
    running.add(key);
    killed.delete(key);
    const frames = this.#run(id, args).finally(() => {
      running.delete(key);
      killed.delete(key);
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
    const key = this.#key(args.id);
    if (running.has(key)) killed.add(key);
  }

  /** Nothing is retained after a run. */
  async disposeExec(_args: { id: string }): Promise<void> {}

  override async fetch(_request?: Request): Promise<Response> {
    return new Response("ShellWorker speaks Workers RPC only\n", { status: 426 });
  }

  /** The running-set key of an execution: its id within the workspace the props name (none in a Dynamic Worker). */
  #key(id: string): string {
    const props = this.ctx.props as Partial<ShellWorkerProps> | undefined;
    return props?.binding === undefined ? id : `${props.binding}/${props.id}/${id}`;
  }

  /** `env.HOST`, or the Durable Object the props name in this Worker's env. */
  #host(): ShellHost {
    const env = this.env as ShellWorkerEnv & Record<string, unknown>;
    if (env.HOST !== undefined) return env.HOST;
    const props = this.ctx.props as Partial<ShellWorkerProps> | undefined;
    const namespace = props?.binding === undefined ? undefined : env[props.binding];
    if (typeof props?.id !== "string" || !isNamespace(namespace)) {
      throw new TypeError(
        "ShellWorker needs env.HOST (a WorkspaceServiceProxy) or props { binding, id } naming a withWorkspace Durable Object namespace of this Worker's env",
      );
    }
    const { id } = props;
    return { getWorkspace: () => namespace.get(namespace.idFromString(id)).__getWorkspaceStub() };
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
    const key = this.#key(id);
    const poll = setInterval(() => {
      if (killed.has(key)) control.abort({ code: KILLED_EXIT_CODE, message: KILLED_MESSAGE } satisfies Stop);
    }, KILL_POLL_MS);
    let ws: ShellWorkspace | undefined;
    let work: Promise<unknown> = Promise.resolve();
    try {
      ws = await this.#host().getWorkspace();
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
  ): Promise<ShellRunResult & { bytes: boolean }> {
    const cwd = args.cwd ?? this.shellOptions.cwd ?? SHELL_DEFAULT_CWD;
    // A cwd the caller names must exist before anything runs, as on container-shell (one message shape);
    // the default stays lenient, so a fresh workspace without /workspace still runs commands.
    if (args.cwd !== undefined) {
      const problem = await cwdProblem(ws.fs, args.cwd);
      if (problem !== undefined)
        return { stdout: "", stderr: `spawn failed: ${problem}\n`, exitCode: -1, bytes: false };
    }
    const enabled = (this.env as ShellWorkerEnv).SHELL_COMMANDS ?? ALL_GROUP_COMMANDS;
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
    if (this.bashFactoryOverride !== undefined) {
      const run = { cwd, signal, customCommands: custom };
      const overridden = await this.bashFactoryOverride(args.command, {
        ...run,
        ...(args.env === undefined ? {} : { env: args.env }),
        ...(args.stdin === undefined ? {} : { stdin: args.stdin }),
      });
      return { ...overridden, bytes: false };
    }
    const secureFetch = this.shellOptions.fetch === null ? undefined : (this.shellOptions.fetch ?? workerFetch(fetch));
    const bash = new Bash({
      fs: new WorkspaceFsAdapter(ws.fs),
      cwd,
      env: { HOME: SHELL_DEFAULT_CWD, ...args.env },
      commands: optionalCommands(enabled),
      customCommands: custom,
      executionLimits: { maxOutputSize: SHELL_OUTPUT_LIMIT_BYTES },
      defenseInDepth: false,
      ...(enabled.includes("curl") && secureFetch ? { fetch: secureFetch } : {}),
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

/** A Durable Object namespace, as far as reaching a `withWorkspace` object needs one. */
interface WorkspaceNamespace {
  idFromString(id: string): unknown;
  get(id: unknown): { __getWorkspaceStub(): Promise<ShellWorkspace> };
}

function isNamespace(value: unknown): value is WorkspaceNamespace {
  const namespace = value as Partial<WorkspaceNamespace> | undefined;
  return typeof namespace?.idFromString === "function" && typeof namespace.get === "function";
}

/** Why `cwd` cannot be entered (`ENOENT: no such file or directory, chdir '…'`, Node's shape), or undefined. */
async function cwdProblem(fs: ShellWorkspace["fs"], cwd: string): Promise<string | undefined> {
  const stat = await fs.statOrNull(cwd).catch(() => null);
  if (stat === null) return `ENOENT: no such file or directory, chdir '${cwd}'`;
  return stat.isDirectory ? undefined : `ENOTDIR: not a directory, chdir '${cwd}'`;
}

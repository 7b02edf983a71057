/**
 * The containers of the local container host: one computerd process per
 * name, each in its own mount namespace, so every workspace gets its own
 * FUSE mount at `/workspace` while the host's `/workspace` stays an empty
 * directory. A container's exit is recorded (code or signal, and the runtime
 * id it ran under) so the Durable Object can report it and relaunch.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { findBwrap, makeContainerRoot } from "./container-root.js";
import { abortFuseConnection, type FuseConnection, fuseConnectionOf } from "./fuse-abort.js";
import { rootfsLaunch } from "./rootfs.js";

export interface ContainerExit {
  runtimeId: string;
  exitCode: number | null;
  signal?: string;
  at: number;
  message?: string;
}

/** What a container's commands may reach: nothing, the host's network, or only the Durable Object's gateway. */
export type EgressMode = "none" | "direct" | "http-gateway";

export interface LaunchRequest {
  env: Record<string, string>;
  enableInternet: boolean;
  /** Default: `direct` with `enableInternet`, else `none`. */
  egress?: EgressMode;
  runtimeId: string;
}

export interface HostContainer {
  readonly name: string;
  readonly runtimeId: string;
  readonly secret: string | undefined;
  readonly child: ChildProcess;
  /** computerd's own pid (under `unshare --fork`, the child of `child`). */
  readonly daemonPid: number;
  /** The FUSE connection of its mount, to abort if it dies with commands blocked on it. */
  readonly fuseConnection: FuseConnection | undefined;
  /** computerd's TCP port on 127.0.0.1; every container port maps to it. */
  readonly port: number;
}

export interface ContainerSetOptions {
  /** The computerd entry script (`dist/cli/main.js`). */
  entry: string;
  /** `node` to run it with. */
  node?: string;
  /** Inherited by every container besides its own env: PATH, HOME, LANG… */
  baseEnv?: Record<string, string>;
  /**
   * Run each container in its own mount and pid namespaces, its commands in
   * its own root under bubblewrap (default true; needs root, `unshare` and
   * `bwrap`). False runs commands on the host's root: tests of the daemon only.
   */
  namespaces?: boolean;
  /**
   * Boot each container from this image root filesystem (containers/rootfs.sh):
   * computerd is the image's, chrooted in it (see rootfs.ts); `entry` and `node` are unused.
   */
  rootfs?: string;
  log?: (line: string) => void;
  /** How long a container may take to print its listening line. */
  bootTimeoutMs?: number;
  /**
   * The daemon's environment for egress `http-gateway` (its tunnel to the
   * host's proxy, the CA its commands trust); without it such a launch fails.
   */
  gatewayEnv?: (name: string) => Promise<Record<string, string>>;
}

/** Kill grace before SIGKILL, as computerd gives its own children. */
const STOP_GRACE_MS = 5000;

export class ContainerSet {
  readonly #options: ContainerSetOptions;
  readonly #running = new Map<string, HostContainer>();
  readonly #exits = new Map<string, ContainerExit>();
  readonly #starting = new Map<string, Promise<HostContainer>>();
  /** Crash tests: the `COMPUTERD_CRASH_AT` of the next launch of a name, used once. */
  readonly #crashes = new Map<string, string>();

  constructor(options: ContainerSetOptions) {
    this.#options = options;
  }

  get(name: string): HostContainer | undefined {
    return this.#running.get(name);
  }

  exit(name: string): ContainerExit | undefined {
    return this.#exits.get(name);
  }

  names(): string[] {
    return [...this.#running.keys()];
  }

  /**
   * Arms a fault for the next launch of `name` only (its relaunch runs clean):
   * that computerd SIGKILLs itself at the sync step `at` names (`COMPUTERD_CRASH_AT`).
   */
  armCrash(name: string, at: string): void {
    this.#crashes.set(name, at);
  }

  /** Starts a container under `name`, replacing (stopping) one that runs. */
  async start(name: string, request: LaunchRequest): Promise<HostContainer> {
    await this.#starting.get(name)?.catch(() => {});
    const starting = this.#start(name, request);
    this.#starting.set(name, starting);
    try {
      return await starting;
    } finally {
      if (this.#starting.get(name) === starting) this.#starting.delete(name);
    }
  }

  /** SIGTERM to computerd (it kills its commands and unmounts), SIGKILL after the grace. */
  async stop(name: string): Promise<void> {
    const container = this.#running.get(name);
    if (!container) return;
    await this.#end(container, "SIGTERM");
  }

  /** SIGKILL, as a crash would; resolves once the process is gone. */
  async kill(name: string): Promise<void> {
    const container = this.#running.get(name);
    if (!container) return;
    await this.#end(container, "SIGKILL");
  }

  /**
   * Signals computerd itself: `unshare --fork` does not pass SIGTERM on, and
   * with computerd as the namespace's pid 1 its death takes every command
   * along. Commands stuck on the dead mount are released by aborting the FUSE
   * connection (see fuse-abort.ts).
   */
  async #end(container: HostContainer, signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    const { child } = container;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    const signalDaemon = (which: NodeJS.Signals): void => {
      try {
        process.kill(container.daemonPid, which);
      } catch {
        child.kill(which);
      }
    };
    signalDaemon(signal);
    const grace = setTimeout(() => signalDaemon("SIGKILL"), signal === "SIGKILL" ? 0 : STOP_GRACE_MS);
    const unstick = setTimeout(
      () => {
        if (container.fuseConnection !== undefined) abortFuseConnection(container.fuseConnection);
      },
      signal === "SIGKILL" ? 100 : STOP_GRACE_MS + 100,
    );
    await exited;
    clearTimeout(grace);
    clearTimeout(unstick);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.names().map((name) => this.stop(name)));
  }

  /**
   * `none`: each command in an empty network namespace. `http-gateway`: the
   * commands share one namespace whose only way out is the proxy port
   * computerd tunnels to this host. `direct`: the host's network.
   */
  async #egressEnv(name: string, request: LaunchRequest): Promise<Record<string, string>> {
    const egress = request.egress ?? (request.enableInternet ? "direct" : "none");
    if (egress === "direct") return {};
    if (egress === "none") return { COMPUTERD_EXEC_NETWORK: "none" };
    if (!this.#options.gatewayEnv) throw new Error("this container host has no egress gateway");
    return { COMPUTERD_EXEC_NETWORK: "gateway", ...(await this.#options.gatewayEnv(name)) };
  }

  #takeCrash(name: string): Record<string, string> {
    const at = this.#crashes.get(name);
    this.#crashes.delete(name);
    return at === undefined ? {} : { COMPUTERD_CRASH_AT: at };
  }

  async #start(name: string, request: LaunchRequest): Promise<HostContainer> {
    await this.stop(name);
    const mountPoint = request.env.MOUNT_POINT ?? "/workspace";
    // The mount point must exist on the host for a namespace to mount over it; it stays empty there.
    mkdirSync(mountPoint, { recursive: true });
    const env: Record<string, string> = {
      ...this.#options.baseEnv,
      ...request.env,
      // One process per container on the host's loopback: the container's port is whatever it gets.
      PORT: "0",
      HOST: "127.0.0.1",
      // The daemon keeps the host's network (it must reach the host); its commands get what egress allows.
      ...(await this.#egressEnv(name, request)),
      ...this.#takeCrash(name),
    };
    const node = this.#options.node ?? process.execPath;
    const { rootfs } = this.#options;
    const namespaces = rootfs !== undefined || (this.#options.namespaces ?? true);
    // An image is already the container's own root with its own /tmp: bubblewrap (which it lacks) is for the host root.
    const sandboxed = namespaces && rootfs === undefined;
    if (sandboxed) findBwrap(env.PATH);
    const root = sandboxed ? makeContainerRoot(name) : undefined;
    if (root) Object.assign(env, root.env);
    const launch = rootfs === undefined ? { argv: [node, this.#options.entry], env } : rootfsLaunch(rootfs, env);
    // A pid namespace too: computerd is its pid 1, so when it dies every command it started dies with it,
    // as in a real container; --kill-child passes our SIGTERM on to it for a clean shutdown.
    const argv = namespaces
      ? [
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "--pid",
          "--fork",
          // Its own /proc: a command's pid 1 is computerd, and the pids FUSE reports match what /proc shows.
          "--mount-proc",
          "--kill-child=SIGTERM",
          "--",
          ...launch.argv,
        ]
      : launch.argv;
    // unshare ignores SIGTERM and outlives a host that dies: with a parent-death signal it dies with the host,
    // and --kill-child then shuts computerd (and so every command) down instead of leaving the container behind.
    const [command, ...args] =
      namespaces && SETPRIV !== undefined ? [SETPRIV, "--pdeathsig", "SIGKILL", "--", ...argv] : argv;
    const child = spawn(command as string, args, { env: launch.env, stdio: ["ignore", "pipe", "pipe"] });
    // The container's /tmp, /var/tmp and /root go with it (whether it booted or not).
    if (root) child.once("exit", () => root.remove());
    const log = this.#options.log ?? (() => {});
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`computerd for ${name} did not start within ${this.#options.bootTimeoutMs ?? 15_000} ms`));
      }, this.#options.bootTimeoutMs ?? 15_000);
      const onData = (chunk: Buffer): void => {
        const text = chunk.toString("utf8");
        for (const line of text.split("\n")) if (line.trim()) log(`[${name}] ${line}`);
        buffered += text;
        const match = /computerd listening host=\S+ port=(\d+)/.exec(buffered);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
        if (buffered.length > 64 * 1024) buffered = buffered.slice(-4096);
      };
      child.stderr?.on("data", onData);
      child.stdout?.on("data", (chunk: Buffer) => log(`[${name}] ${chunk.toString("utf8").trimEnd()}`));
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`computerd for ${name} exited during boot: ${code ?? signal}\n${buffered.slice(-2000)}`));
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    const daemon = daemonPid(child) ?? child.pid ?? 0;
    const container: HostContainer = {
      daemonPid: daemon,
      fuseConnection: fuseConnectionOf(daemon, mountPoint),
      name,
      runtimeId: request.runtimeId,
      secret: request.env.RPC_CLIENT_SECRET,
      child,
      port,
    };
    this.#running.set(name, container);
    this.#exits.delete(name);
    child.once("exit", (code, signal) => {
      if (container.fuseConnection !== undefined) abortFuseConnection(container.fuseConnection);
      if (this.#running.get(name) === container) this.#running.delete(name);
      this.#exits.set(name, {
        runtimeId: request.runtimeId,
        exitCode: code,
        ...(signal ? { signal } : {}),
        at: Date.now(),
      });
      log(`[${name}] exited ${code ?? signal}`);
    });
    return container;
  }
}

/** util-linux's setpriv (next to unshare), if this machine has it. */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/local/bin/setpriv"].find((path) => existsSync(path));

/** computerd's pid when it runs under `unshare --fork` (the child of our child), else the child itself. */
function daemonPid(child: ChildProcess): number | undefined {
  if (child.pid === undefined) return undefined;
  try {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
    const first = Number(children.split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : child.pid;
  } catch {
    return child.pid;
  }
}

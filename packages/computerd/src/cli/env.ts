/**
 * The daemon's configuration, read once from the environment at boot. Every
 * bad value is a `ConfigError` that `main` turns into a message and exit 2,
 * before anything is mounted or bound.
 */
import { isAbsolute } from "node:path";
import { type BusyPollSetting, DEFAULT_SPIN_MICROS } from "../mount/kernel/busy-poll.js";
import type { FuseDriverSetting, FuseOptions, MountSetting } from "../mount/options.js";
import { CRASH_METHODS, type CrashAt } from "./crash-at.js";

export interface Config {
  host: string;
  port: number;
  mountPoint: string;
  mount: MountSetting;
  execLogMaxBytes: number;
  /** The bearer every route but /health requires; undefined leaves the daemon open. */
  secret: string | undefined;
  /** `COMPUTER_VAR_X=v` as `{ X: "v" }`. */
  computerVars: Record<string, string>;
  logFile: string | undefined;
  trackStubs: boolean;
  fuse: FuseOptions;
  /**
   * `COMPUTERD_EXEC_NETWORK`: `host` (default) runs commands in the daemon's
   * network; `none` gives each command an empty network namespace (loopback
   * only, nothing outside); `gateway` puts all commands in one namespace whose
   * only way out is an HTTP proxy port tunneled to the local container host
   * (egress `http-gateway`; needs `egress`). The local container host sets it,
   * since no container runtime cuts the network for us.
   */
  execNetwork: "host" | "none" | "gateway";
  /**
   * For `gateway`: `COMPUTERD_EGRESS_TUNNEL` (the host's tunnel URL),
   * `COMPUTERD_EGRESS_CA` and `COMPUTERD_EGRESS_CA_BUNDLE` (the CA the
   * commands trust, alone and with the system roots).
   */
  egress: { tunnel: string; caCert: string; caBundle: string } | undefined;
  /**
   * `COMPUTERD_STORE`: where the workspace store's pages live. `file`
   * (default): an anonymous temporary file SQLite deletes when the daemon
   * exits, read through a bounded cache, so freed chunks leave the process
   * (a heap-backed store keeps freed pages in the allocator). `memory`: the
   * process's heap.
   */
  store: "file" | "memory";
  /**
   * `COMPUTERD_STATE_DIR`: a directory on the container's disk for the
   * store (store/state.ts), which then outlives the daemon: what a writer
   * fsynced or closed survives a crash of computerd, and a restarted daemon
   * pushes it. Unset: the anonymous file above. Ignored with `memory`.
   */
  stateDir: string | undefined;
  /** `COMPUTERD_CRASH_AT`: a fault for crash tests (see `crash-at.ts`); unset in production. */
  crashAt: CrashAt | undefined;
  /**
   * `COMPUTERD_IDLE_RECLAIM_MS`: how long the daemon must be quiet before it
   * hands the memory its last burst left behind back to the kernel
   * (memory/reclaimer.ts); 0 turns idle reclaim off. Default 3000.
   */
  idleReclaimMs: number;
  /**
   * `COMPUTERD_EXEC_SANDBOX=bwrap` with `COMPUTERD_EXEC_ROOT` (the container's
   * writable state dir) and `COMPUTERD_EXEC_HOSTNAME`: each command runs in
   * the local container's root (exec/sandbox.ts). The local container host
   * sets them; on Cloudflare's container the container is the sandbox.
   */
  sandbox: { root: string; hostname: string } | undefined;
}

export const DEFAULT_PORT = 45_678;
export const DEFAULT_MOUNT_POINT = "/workspace";
export const DEFAULT_EXEC_LOG_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_FUSE_IO_SIZE = 524_288;
export const DEFAULT_IDLE_RECLAIM_MS = 3_000;
/** Seconds a name (or its absence) stays cached when a push can drop every cached name at once. */
export const EPOCH_ENTRY_TIMEOUT = 30;
/** 1 MiB: libfuse 3's largest write request (256 pages); fewer round trips per large write. */
export const DEFAULT_FUSE_MAX_WRITE = 1_048_576;

/** Variables of older daemons whose meaning changed; refusing them beats guessing. */
export const LEGACY_VARIABLES = ["DISABLE_FUSE", "FUSE_SHIM", "WSD_FUSE_BACKEND"] as const;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Record<string, string | undefined>;

/**
 * Reads the configuration and deletes `RPC_CLIENT_SECRET` from `env` (the
 * daemon's own `process.env` in production), so no child and no later
 * `process.env` dump ever sees it.
 */
export function readConfig(env: Env, defaults: { port?: number } = {}): Config {
  for (const name of LEGACY_VARIABLES) {
    if (env[name] !== undefined) {
      throw new ConfigError(`${name} is no longer supported; use FUSE_MOUNT=auto|fuse|macfuse|shim|none`);
    }
  }
  const rawSecret = env.RPC_CLIENT_SECRET;
  delete env.RPC_CLIENT_SECRET;
  const secret = rawSecret?.trim() || undefined;
  const mountPoint = env.MOUNT_POINT ?? DEFAULT_MOUNT_POINT;
  if (!isAbsolute(mountPoint)) throw new ConfigError(`MOUNT_POINT must be an absolute path, got "${mountPoint}"`);
  return {
    host: env.HOST || "0.0.0.0",
    port: parsePort(env.PORT, defaults.port ?? stampedPort(env)),
    mountPoint: trimSlash(mountPoint),
    mount: parseMount(env.FUSE_MOUNT),
    execLogMaxBytes: parsePositive(env.EXEC_LOG_MAX_BYTES, "EXEC_LOG_MAX_BYTES", DEFAULT_EXEC_LOG_MAX_BYTES),
    secret,
    computerVars: computerVars(env),
    logFile: env.LOG_FILE || undefined,
    trackStubs: env.CAPNWEB_TRACK_STUBS === "1",
    fuse: fuseOptions(env),
    execNetwork: execNetwork(env.COMPUTERD_EXEC_NETWORK),
    egress: egressConfig(env),
    sandbox: sandboxConfig(env),
    store: parseStore(env.COMPUTERD_STORE),
    stateDir: parseStateDir(env.COMPUTERD_STATE_DIR),
    crashAt: parseCrashAt(env.COMPUTERD_CRASH_AT),
    idleReclaimMs: parseCount(env.COMPUTERD_IDLE_RECLAIM_MS, "COMPUTERD_IDLE_RECLAIM_MS", DEFAULT_IDLE_RECLAIM_MS),
  };
}

function parseCrashAt(value: string | undefined): CrashAt | undefined {
  if (value === undefined || value === "") return undefined;
  const match = /^([a-zA-Z]+):([1-9][0-9]*)$/.exec(value);
  const method = CRASH_METHODS.find((name) => name === match?.[1]);
  if (!match || method === undefined) {
    throw new ConfigError(
      `COMPUTERD_CRASH_AT must be <${CRASH_METHODS.join("|")}>:<n ≥ 1>; got ${JSON.stringify(value)}`,
    );
  }
  return { method, call: Number(match[2]) };
}

/** A build may stamp its own default port (the container image uses 8080). */
function stampedPort(env: Env): number {
  const stamped = env.COMPUTERD_DEFAULT_PORT;
  return stamped === undefined ? DEFAULT_PORT : parsePort(stamped, DEFAULT_PORT, "COMPUTERD_DEFAULT_PORT");
}

function parsePort(value: string | undefined, fallback: number, name = "PORT"): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    throw new ConfigError(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}

function parseStore(value: string | undefined): Config["store"] {
  if (value === undefined || value === "" || value === "file") return "file";
  if (value === "memory") return value;
  throw new ConfigError(`COMPUTERD_STORE must be file or memory, got "${value}"`);
}

function parseStateDir(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!isAbsolute(value)) throw new ConfigError(`COMPUTERD_STATE_DIR must be an absolute path, got "${value}"`);
  return trimSlash(value);
}

function parseMount(value: string | undefined): MountSetting {
  const setting = value === undefined || value === "" ? "auto" : value;
  if (!["auto", "fuse", "macfuse", "shim", "none"].includes(setting)) {
    throw new ConfigError(`FUSE_MOUNT must be auto, fuse, macfuse, shim or none, got "${value}"`);
  }
  return setting as MountSetting;
}

/** An integer >= 0. */
function parseCount(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(`${name} must be an integer >= 0, got "${value}"`);
  }
  return Number(value);
}

function parsePositive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) <= 0) {
    throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

const VAR_PREFIX = "COMPUTER_VAR_";

function computerVars(env: Env): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(VAR_PREFIX) && key.length > VAR_PREFIX.length && value !== undefined) {
      vars[key.slice(VAR_PREFIX.length)] = value;
    }
  }
  return vars;
}

/** `""`, 0, false, no and off turn a switch off; anything else set turns it on. */
function parseSwitch(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return !["", "0", "false", "no", "off"].includes(value.trim().toLowerCase());
}

/** Seconds (fractions allowed); `""` drops the option. */
function parseSeconds(value: string | undefined, name: string, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  if (value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new ConfigError(`${name} must be seconds >= 0, got "${value}"`);
  return seconds;
}

function fuseOptions(env: Env): FuseOptions {
  const autoCache = parseSwitch(env.COMPUTERD_FUSE_AUTO_CACHE, true);
  const extra = (env.COMPUTERD_FUSE_EXTRA_OPTS ?? "")
    .split(",")
    .map((option) => option.trim())
    // The kernel's writeback cache reorders writes behind the daemon's back and breaks the write buffer.
    .filter((option) => option !== "" && option !== "writeback_cache");
  const trace =
    env.COMPUTERD_FUSE_TRACE === "summary" ? { file: env.COMPUTERD_FUSE_TRACE_FILE || undefined } : undefined;
  return {
    driver: parseDriver(env.COMPUTERD_FUSE_DRIVER),
    writebackCache: parseSwitch(env.COMPUTERD_FUSE_WRITEBACK_CACHE, false),
    loop: parseLoop(env.COMPUTERD_FUSE_LOOP),
    pageCache: pageCache(env),
    epochTimeouts:
      env.COMPUTERD_FUSE_ENTRY_TIMEOUT === undefined && env.COMPUTERD_FUSE_NEGATIVE_TIMEOUT === undefined
        ? { entry: EPOCH_ENTRY_TIMEOUT, negative: EPOCH_ENTRY_TIMEOUT }
        : undefined,
    maxRead: parsePositive(env.COMPUTERD_FUSE_MAX_READ, "COMPUTERD_FUSE_MAX_READ", DEFAULT_FUSE_IO_SIZE),
    maxWrite: parsePositive(env.COMPUTERD_FUSE_MAX_WRITE, "COMPUTERD_FUSE_MAX_WRITE", DEFAULT_FUSE_MAX_WRITE),
    autoCache,
    // auto_cache wins when both are on: kernel_cache would keep stale pages after a sync from the DO.
    kernelCache: !autoCache && parseSwitch(env.COMPUTERD_FUSE_KERNEL_CACHE, false),
    attrTimeout: parseSeconds(env.COMPUTERD_FUSE_ATTR_TIMEOUT, "COMPUTERD_FUSE_ATTR_TIMEOUT", 1),
    entryTimeout: parseSeconds(env.COMPUTERD_FUSE_ENTRY_TIMEOUT, "COMPUTERD_FUSE_ENTRY_TIMEOUT", 1),
    acAttrTimeout: parseSeconds(env.COMPUTERD_FUSE_AC_ATTR_TIMEOUT, "COMPUTERD_FUSE_AC_ATTR_TIMEOUT", 1),
    negativeTimeout: parseSeconds(env.COMPUTERD_FUSE_NEGATIVE_TIMEOUT, "COMPUTERD_FUSE_NEGATIVE_TIMEOUT", 0),
    extra,
    trace,
    busyPoll: {
      setting: parseBusyPoll(env.COMPUTERD_FUSE_BUSY_POLL),
      spinMicros: parseCount(env.COMPUTERD_FUSE_SPIN_US, "COMPUTERD_FUSE_SPIN_US", DEFAULT_SPIN_MICROS),
    },
    noOpen: parseOnOff(env.COMPUTERD_FUSE_NO_OPEN, "COMPUTERD_FUSE_NO_OPEN", true),
    uring: parseOnOff(env.COMPUTERD_FUSE_URING, "COMPUTERD_FUSE_URING", true),
  };
}

/** `on` or `off` (unset or empty: the fallback). */
function parseOnOff(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  if (value === "on" || value === "off") return value === "on";
  throw new ConfigError(`${name} must be on or off; got ${JSON.stringify(value)}`);
}

function parseBusyPoll(value: string | undefined): BusyPollSetting {
  if (value === undefined || value === "" || value === "auto") return "auto";
  if (value === "qos" || value === "spin" || value === "off") return value;
  throw new ConfigError(`COMPUTERD_FUSE_BUSY_POLL must be auto, qos, spin or off; got ${JSON.stringify(value)}`);
}

function pageCache(env: Env): FuseOptions["pageCache"] {
  const auto = env.COMPUTERD_FUSE_AUTO_CACHE;
  const kernel = env.COMPUTERD_FUSE_KERNEL_CACHE;
  if (auto === undefined && kernel === undefined) return "kernel";
  if (parseSwitch(auto, false)) return "auto";
  return parseSwitch(kernel, false) ? "kernel" : "none";
}

function parseLoop(value: string | undefined): FuseOptions["loop"] {
  if (value === undefined || value === "" || value === "main") return "main";
  if (value === "threads") return value;
  throw new ConfigError(`COMPUTERD_FUSE_LOOP must be main or threads; got ${JSON.stringify(value)}`);
}

function parseDriver(value: string | undefined): FuseDriverSetting {
  if (value === undefined || value === "" || value === "auto") return "auto";
  if (value === "fuse-napi" || value === "fuse-native" || value === "kernel") return value;
  throw new ConfigError(
    `COMPUTERD_FUSE_DRIVER must be auto, fuse-napi, fuse-native or kernel; got ${JSON.stringify(value)}`,
  );
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function execNetwork(value: string | undefined): "host" | "none" | "gateway" {
  if (value === undefined || value === "" || value === "host") return "host";
  if (value === "none" || value === "gateway") return value;
  throw new ConfigError(`COMPUTERD_EXEC_NETWORK must be host, none or gateway; got ${JSON.stringify(value)}`);
}

function sandboxConfig(env: Env): Config["sandbox"] {
  const mode = env.COMPUTERD_EXEC_SANDBOX;
  if (mode === undefined || mode === "" || mode === "none") return undefined;
  if (mode !== "bwrap")
    throw new ConfigError(`COMPUTERD_EXEC_SANDBOX must be none or bwrap; got ${JSON.stringify(mode)}`);
  const root = env.COMPUTERD_EXEC_ROOT ?? "";
  if (!isAbsolute(root)) {
    throw new ConfigError(`COMPUTERD_EXEC_SANDBOX=bwrap needs COMPUTERD_EXEC_ROOT, an absolute path; got "${root}"`);
  }
  const hostname = env.COMPUTERD_EXEC_HOSTNAME || "computer";
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$/.test(hostname)) {
    throw new ConfigError(`COMPUTERD_EXEC_HOSTNAME must be a hostname; got ${JSON.stringify(hostname)}`);
  }
  return { root, hostname };
}

function egressConfig(env: Env): Config["egress"] {
  if (execNetwork(env.COMPUTERD_EXEC_NETWORK) !== "gateway") return undefined;
  const tunnel = env.COMPUTERD_EGRESS_TUNNEL ?? "";
  if (!/^http:\/\/[^/]+\/.*$/.test(tunnel)) {
    throw new ConfigError(
      `COMPUTERD_EXEC_NETWORK=gateway needs COMPUTERD_EGRESS_TUNNEL, an http:// URL; got "${tunnel}"`,
    );
  }
  const caCert = env.COMPUTERD_EGRESS_CA ?? "";
  const caBundle = env.COMPUTERD_EGRESS_CA_BUNDLE ?? "";
  if (!isAbsolute(caCert) || !isAbsolute(caBundle)) {
    throw new ConfigError(
      "COMPUTERD_EXEC_NETWORK=gateway needs COMPUTERD_EGRESS_CA and COMPUTERD_EGRESS_CA_BUNDLE, absolute paths",
    );
  }
  return { tunnel, caCert, caBundle };
}

/**
 * Boot, in the specified order: config is already read (secret gone from
 * the env); open the store (store/state.ts: a file in COMPUTERD_STATE_DIR,
 * checked if an earlier daemon left it, an anonymous temporary file, or the
 * heap with COMPUTERD_STORE=memory); mount unless the mode is none; start chunk gc
 * and idle reclaim; create the runner and the server; listen last, so a
 * 200 from /health means the mount is up.
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { type Database, ensureSchema, GC_SAFETY_WINDOW_MS, WorkspaceFilesystem } from "@cloudflare/dofs";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { egressEnv, FETCH_PROXY } from "../egress/env.js";
import { type EgressNamespace, openEgressNamespace } from "../egress/namespace.js";
import { tunnelConnections } from "../egress/tunnel.js";
import { allowedEnv } from "../exec/env.js";
import { Runner } from "../exec/runner.js";
import { hostPathOf } from "../exec/sandbox.js";
import type { Logger } from "../log/logger.js";
import { Reclaimer } from "../memory/reclaimer.js";
import type { MountDriver } from "../mount/driver.js";
import { resolveMountMode } from "../mount/driver.js";
import { FuseNapiDriver, FuseNapiUnpatchedError, loadFuseNapi } from "../mount/fuse-napi.js";
import { FuseNativeDriver } from "../mount/fuse-native.js";
import { guardMountPoint, removeGuard } from "../mount/guard.js";
import { loadFuseDev } from "../mount/kernel/fuse-dev.js";
import { FUSERMOUNT, fusermountOnPath } from "../mount/kernel/fusermount.js";
import { KernelDriver } from "../mount/kernel-driver.js";
import type { MountFsDriver } from "../mount/mount-fs-driver.js";
import { clearStaleMount } from "../mount/mount-point.js";
import type { MountMode } from "../mount/options.js";
import { ShimDriver } from "../mount/shim.js";
import { createDaemonServer, type DaemonServer } from "../server/http.js";
import { ChunkCollector } from "../store/collector.js";
import { openStore } from "../store/state.js";
import { withCrashAt } from "./crash-at.js";
import type { Config } from "./env.js";

export interface Daemon {
  readonly port: number;
  readonly mode: MountMode;
  /** Closes the servers, SIGKILLs every child and unmounts. Idempotent. */
  close(): Promise<void>;
  /** SIGKILLs every command's process group, synchronously: what a dying daemon can still do (an `exit` handler). */
  killCommands(): void;
}

export async function startDaemon(config: Config, log: Logger): Promise<Daemon> {
  const { db, durable } = openStore(
    config,
    { commitDelayMs: STORE_COMMIT_DELAY_MS, ...(config.store === "file" ? { cacheKiB: STORE_CACHE_KIB } : {}) },
    (line) => log.info(line),
  );
  const fs = new WorkspaceFilesystem(db);
  // The collector and /__computerd/stats read the store before any fs call would create it (FUSE_MOUNT=none).
  ensureSchema(db, Date.now());
  const mode = resolveMountMode(config.mount);
  let driver: MountDriver | undefined;
  let guarded = false;
  if (mode !== "none") {
    await fs.mkdir(config.mountPoint, { recursive: true });
    if (mode === "fuse" || mode === "macfuse") {
      const fuse = createFuseDriver(db, config, log);
      // Before mount: the drivers pick their close handling (FLUSH or not) from it.
      if (durable) fuse.fs.persistWith(() => db.flush());
      // Dead mounts an earlier daemon left go first; then the guard (mount/guard.ts) beneath ours. Only the
      // kernel driver mounts on one: the libfuse bindings refuse a mount point on another filesystem than its parent.
      if (fuse instanceof KernelDriver) {
        await clearStaleMount(config.mountPoint, log);
        guarded = await guardMountPoint(config.mountPoint, log);
      }
      driver = fuse;
    } else {
      driver = new ShimDriver(db, config.mountPoint, log);
    }
    if (mode === "shim") mkdirSync(config.mountPoint, { recursive: true });
    await driver.mount();
  }
  const mounted = driver !== undefined;
  // A mount that cannot say what its handles read falls back to the spec's window.
  const held = driver === undefined ? () => {} : driver.heldChunks?.bind(driver);
  const collector = new ChunkCollector(db, {
    held: held ?? (() => {}),
    windowMs: held === undefined ? GC_SAFETY_WINDOW_MS : 0,
    log: (message, error) => log.error(message, error),
  });
  collector.start();
  const reclaimer = new Reclaimer(db, {
    ...(driver?.releaseIdle ? { releaseIdle: () => driver.releaseIdle?.() } : {}),
    ...(driver?.parkedBytes ? { parkedBytes: () => driver.parkedBytes?.() ?? 0 } : {}),
    idleMs: config.idleReclaimMs,
    log: (message, error) => log.error(message, error),
  });
  if (config.idleReclaimMs > 0) reclaimer.start();

  // Egress gateway: the commands' namespace and its proxy port exist before the first command can run.
  let egress: EgressNamespace | undefined;
  if (config.execNetwork === "gateway" && config.egress) {
    egress = await openEgressNamespace();
    tunnelConnections(egress.listener, {
      url: config.egress.tunnel,
      secret: config.secret,
      log: (line) => log.error(line),
    });
  }
  const runner = new Runner({
    db,
    logMaxBytes: config.execLogMaxBytes,
    defaultCwd: mounted ? config.mountPoint : process.cwd(),
    // A cwd is a path of the command's own filesystem: the workspace's store under the mount, the root outside.
    checkCwd: (cwd) => {
      if (mounted && (cwd === config.mountPoint || cwd.startsWith(`${config.mountPoint}/`)))
        return checkVfsCwd(fs, cwd);
      if (!config.sandbox) return checkDiskCwd(cwd);
      const onDisk = hostPathOf({ ...config.sandbox, mountPoint: config.mountPoint }, cwd);
      return onDisk === undefined ? chdirProblem("ENOENT", cwd) : checkDiskCwd(onDisk, cwd);
    },
    envLayers: [
      allowedEnv(process.env),
      ...(egress && config.egress
        ? [egressEnv({ port: egress.port, caCert: config.egress.caCert, caBundle: config.egress.caBundle })]
        : []),
      config.computerVars,
    ],
    beforeSpawn: driver?.beforeExec ? () => driver.beforeExec?.() : undefined,
    network: egress ? { join: egress.path } : config.execNetwork === "none" ? "isolated" : "host",
    ...(config.sandbox
      ? {
          sandbox: {
            ...config.sandbox,
            mountPoint: config.mountPoint,
            // What a command needs from the host beyond the system dirs: the node running us, the gateway's CA.
            readOnly: [
              dirname(dirname(process.execPath)),
              ...(config.egress
                ? [FETCH_PROXY, ...preloadModules(), config.egress.caCert, config.egress.caBundle]
                : []),
            ],
          },
        }
      : {}),
  });
  const peer = new SyncPeer(db, {
    ...(driver?.afterApply
      ? { afterApply: (_result, entries) => driver.afterApply?.(entries.map((entry) => entry.path)) }
      : {}),
    ...(driver?.beforeFetch ? { beforeFetch: () => driver.beforeFetch?.() } : {}),
    ...(driver?.beforeApply
      ? { beforeApply: (entries) => driver.beforeApply?.(entries.map((entry) => entry.path)) }
      : {}),
    log: (message, error) => log.error(message, error),
  });
  if (config.crashAt) withCrashAt(peer, config.crashAt, (line) => log.info(line));

  let port = config.port;
  const server: DaemonServer = createDaemonServer({
    secret: config.secret,
    // The rpc server checks every sync argument (EPROTOCOL) before the peer sees it.
    peer,
    runner,
    db,
    // `backend.kind` is the reference's wire name for the mount mode.
    info: () => ({ backend: { kind: mode }, mountPoint: config.mountPoint, port }),
    trackStubs: config.trackStubs,
    log,
    extraStats: () => ({
      exec_live: runner.liveCount,
      ...runner.log.totals(),
      ...driver?.stats?.(),
      ...collector.stats(),
      ...reclaimer.stats(),
    }),
  });
  await new Promise<void>((resolve, reject) => {
    server.http.once("error", reject);
    server.http.listen(config.port, config.host, () => {
      server.http.off("error", reject);
      resolve();
    });
  });
  port = (server.http.address() as AddressInfo).port;
  // One parseable line: tests and the local container host read the port from it.
  log.info(`computerd listening host=${config.host} port=${port} mount=${mode} mountPoint=${config.mountPoint}`);

  let closing: Promise<void> | undefined;
  return {
    port,
    mode,
    killCommands() {
      runner.shutdown();
    },
    close() {
      closing ??= (async () => {
        runner.shutdown();
        collector.stop();
        reclaimer.stop();
        egress?.close();
        await server.close().catch((error) => log.error("closing the server failed", error));
        await driver?.unmount().catch((error) => log.error("unmount failed", error));
        // The unmount committed every parked file into the batch: a store that outlives us gets it.
        db.flush();
        if (guarded) await removeGuard(config.mountPoint);
      })();
      return closing;
    },
  };
}

/** SQLite's page cache over the store file: reads past it come from the kernel's page cache. */
const STORE_CACHE_KIB = 16_384;
/**
 * Writes join one SQLite transaction committed this long after it opened
 * (docs/computerd.md, "Where the store lives"): nothing outside this process
 * reads the store, so a burst of metadata changes pays the journal and page
 * writes once, not per request. A store that outlives the daemon commits
 * sooner where it must: at every close, fsync and fsyncdir (MountFs.persistWith).
 */
const STORE_COMMIT_DELAY_MS = 20;

/**
 * `COMPUTERD_FUSE_DRIVER`: an explicit choice must load. auto takes our own kernel driver when its addon is
 * built (computerd's install builds it) and we may mount (root, or fusermount3 for other users); else
 * fuse-napi when it has our patch (pnpm applies it; npm cannot); else fuse-native. Why the kernel driver
 * leads: docs/benchmarks.md ("Our own FUSE layer") and docs/computerd.md ("POSIX: which driver does what").
 */
function createFuseDriver(db: Database, config: Config, log: Logger): MountDriver & MountFsDriver {
  const setting = config.fuse.driver;
  if (setting === "fuse-native") return new FuseNativeDriver(db, config.mountPoint, config.fuse, log);
  if (setting === "kernel") return new KernelDriver(db, config.mountPoint, config.fuse, log);
  const kernel = setting === "auto" ? kernelDriverUnavailable() : "COMPUTERD_FUSE_DRIVER=fuse-napi";
  if (kernel === undefined) return new KernelDriver(db, config.mountPoint, config.fuse, log);
  try {
    loadFuseNapi();
  } catch (error) {
    if (setting === "fuse-napi") throw error;
    const reason =
      error instanceof FuseNapiUnpatchedError
        ? (error as Error).message.split("\n")[0]
        : `fuse-napi is not available (${(error as Error).message.split("\n")[0]})`;
    log.info(
      `${kernel}, and ${reason}; using fuse-native (libfuse 2) instead: see docs/packaging.md, "computerd and FUSE"`,
    );
    return new FuseNativeDriver(db, config.mountPoint, config.fuse, log);
  }
  if (setting === "auto") {
    log.info(`${kernel}; using fuse-napi (libfuse 3) instead: see docs/packaging.md, "computerd and FUSE"`);
  }
  return new FuseNapiDriver(db, config.mountPoint, config.fuse, log);
}

/** Why the kernel driver cannot run here, or undefined when it can. */
function kernelDriverUnavailable(): string | undefined {
  // mount(2) of a FUSE file system needs CAP_SYS_ADMIN; other users mount through the setuid fusermount3.
  if (process.geteuid?.() !== 0 && !fusermountOnPath()) return `the kernel driver needs root or ${FUSERMOUNT}`;
  try {
    loadFuseDev();
    return undefined;
  } catch {
    return "native/fuse_dev.node is not built";
  }
}

async function checkVfsCwd(fs: WorkspaceFilesystem, cwd: string): Promise<string | undefined> {
  try {
    return (await fs.stat(cwd)).isDirectory ? undefined : chdirProblem("ENOTDIR", cwd);
  } catch (error) {
    return chdirProblem(error, cwd);
  }
}

async function checkDiskCwd(cwd: string, shown = cwd): Promise<string | undefined> {
  try {
    return (await stat(cwd)).isDirectory() ? undefined : chdirProblem("ENOTDIR", shown);
  } catch (error) {
    return chdirProblem(error, shown);
  }
}

const CHDIR_ERRORS: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EACCES: "permission denied",
  ELOOP: "too many symbolic links encountered",
  ENAMETOOLONG: "name too long",
};

/** One shape on every backend, Node's: `ENOENT: no such file or directory, chdir '/workspace/nope'`. */
export function chdirProblem(error: unknown, cwd: string): string {
  const code = typeof error === "string" ? error : (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && CHDIR_ERRORS[code] !== undefined)
    return `${code}: ${CHDIR_ERRORS[code]}, chdir '${cwd}'`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * undici for the fetch preload, bound where the preload's `require` looks
 * (the package's node_modules entry is a symlink into the store, which a
 * command's root does not have); none when the preload is not here.
 */
function preloadModules(): (readonly [string, string])[] {
  for (let dir = dirname(FETCH_PROXY); dir !== dirname(dir); dir = dirname(dir)) {
    const entry = join(dir, "node_modules", "undici");
    if (existsSync(entry)) return [[realpathSync(entry), entry]];
  }
  return [];
}

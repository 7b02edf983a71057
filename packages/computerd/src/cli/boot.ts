/**
 * Boot, in the specified order: config is already read (secret gone from
 * the env); create the store (an anonymous temporary file, or the heap with
 * COMPUTERD_STORE=memory); mount unless the mode is none; start chunk gc
 * and idle reclaim; create the runner and the server; listen last, so a
 * 200 from /health means the mount is up.
 */
import { mkdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { type Database, ensureSchema, GC_SAFETY_WINDOW_MS, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { egressEnv } from "../egress/env.js";
import { type EgressNamespace, openEgressNamespace } from "../egress/namespace.js";
import { tunnelConnections } from "../egress/tunnel.js";
import { allowedEnv } from "../exec/env.js";
import { Runner } from "../exec/runner.js";
import { Reclaimer } from "../memory/reclaimer.js";
import type { MountDriver } from "../mount/driver.js";
import { resolveMountKind } from "../mount/driver.js";
import { FuseNapiDriver, FuseNapiUnpatchedError, loadFuseNapi } from "../mount/fuse-napi.js";
import { FuseNativeDriver } from "../mount/fuse-native.js";
import { KernelDriver } from "../mount/kernel-driver.js";
import { ShimDriver } from "../mount/shim.js";
import { createDaemonServer, type DaemonServer } from "../server/http.js";
import { checkedSync } from "../server/sync-checks.js";
import { ChunkCollector } from "../store/collector.js";
import type { Config, MountKind } from "./env.js";
import type { Logger } from "./log.js";

export interface Daemon {
  readonly port: number;
  readonly kind: MountKind;
  /** Closes the servers, SIGKILLs every child and unmounts. Idempotent. */
  close(): Promise<void>;
  /** SIGKILLs every command's process group, synchronously: what a dying daemon can still do (an `exit` handler). */
  killCommands(): void;
}

export async function startDaemon(config: Config, log: Logger): Promise<Daemon> {
  const db = config.store === "memory" ? openNodeDatabase() : openNodeDatabase("", { cacheKiB: STORE_CACHE_KIB });
  // The schema exists from the start, mounted or not: chunk gc and idle reclaim read the store's rev from their first poll.
  ensureSchema(db, Date.now());
  const fs = new WorkspaceFilesystem(db);
  const kind = resolveMountKind(config.mount);
  let driver: MountDriver | undefined;
  if (kind !== "none") {
    await fs.mkdir(config.mountPoint, { recursive: true });
    if (kind === "fuse" || kind === "macfuse") {
      driver = createFuseDriver(db, config, log);
    } else {
      driver = new ShimDriver(db, config.mountPoint, log);
    }
    if (kind === "shim") mkdirSync(config.mountPoint, { recursive: true });
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
    checkCwd: mounted ? (cwd) => checkVfsCwd(fs, cwd) : checkDiskCwd,
    envLayers: [
      allowedEnv(process.env),
      ...(egress && config.egress
        ? [egressEnv({ port: egress.port, caCert: config.egress.caCert, caBundle: config.egress.caBundle })]
        : []),
      config.computerVars,
    ],
    beforeSpawn: driver?.beforeExec ? () => driver.beforeExec?.() : undefined,
    network: egress ? { join: egress.path } : config.execNetwork === "none" ? "isolated" : "host",
  });
  const peer = new SyncPeer(db, {
    ...(driver?.afterApply
      ? { afterApply: (_result, entries) => driver.afterApply?.(entries.map((entry) => entry.path)) }
      : {}),
    ...(driver?.beforeFetch ? { beforeFetch: () => driver.beforeFetch?.() } : {}),
    ...(driver?.beforeApply ? { beforeApply: () => driver.beforeApply?.() } : {}),
    log: (message, error) => log.error(message, error),
  });

  let port = config.port;
  const server: DaemonServer = createDaemonServer({
    secret: config.secret,
    peer: checkedSync(peer),
    runner,
    db,
    info: () => ({ backend: { kind }, mountPoint: config.mountPoint, port }),
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
  log.info(`computerd listening host=${config.host} port=${port} mount=${kind} mountPoint=${config.mountPoint}`);

  let closing: Promise<void> | undefined;
  return {
    port,
    kind,
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
      })();
      return closing;
    },
  };
}

/** SQLite's page cache over the store file: reads past it come from the kernel's page cache. */
const STORE_CACHE_KIB = 16_384;

/** `COMPUTERD_FUSE_DRIVER`: an explicit choice must load; auto takes fuse-napi when it is built, else fuse-native. */
function createFuseDriver(db: Database, config: Config, log: Logger): MountDriver {
  const setting = config.fuse.driver;
  if (setting === "fuse-native") return new FuseNativeDriver(db, config.mountPoint, config.fuse, log);
  if (setting === "kernel") return new KernelDriver(db, config.mountPoint, config.fuse, log);
  try {
    loadFuseNapi();
  } catch (error) {
    if (setting === "fuse-napi") throw error;
    const reason = (error as Error).message.split("\n")[0];
    if (error instanceof FuseNapiUnpatchedError) {
      log.info(`${reason}; using fuse-native (libfuse 2) instead: see docs/packaging.md, "computerd and FUSE"`);
    } else {
      log.info(`fuse-napi is not available (${reason}); using fuse-native`);
    }
    return new FuseNativeDriver(db, config.mountPoint, config.fuse, log);
  }
  return new FuseNapiDriver(db, config.mountPoint, config.fuse, log);
}

async function checkVfsCwd(fs: WorkspaceFilesystem, cwd: string): Promise<string | undefined> {
  try {
    const info = await fs.stat(cwd);
    return info.isDirectory ? undefined : `ENOTDIR: not a directory, chdir '${cwd}'`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function checkDiskCwd(cwd: string): Promise<string | undefined> {
  try {
    return (await stat(cwd)).isDirectory() ? undefined : `ENOTDIR: not a directory, chdir '${cwd}'`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

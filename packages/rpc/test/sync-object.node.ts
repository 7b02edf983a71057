/**
 * Hosts `sync-object.worker.ts` in a real workerd through programmatic
 * Miniflare: esbuild bundles the worker from source (so the object runs the
 * same client, session and driver code as the tests), and the object's
 * SQLite persists under a directory of the caller's, so disposing and
 * starting again on the same directory is a Durable Object restart.
 *
 * Outbound: the object dials ws://127.0.0.1:<port> with `fetch`. Miniflare's
 * default `internet` service already allows "private" addresses (a superset
 * of loopback), so no outbound option is needed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import type { OpReply, SideOp } from "./sync-ops.js";

const ENTRY = fileURLToPath(new URL("./sync-object.worker.ts", import.meta.url));

/** Bundles the worker into `outDir`; returns the module's path. `entry` is for callers that are bundles themselves. */
export async function bundleSyncObject(outDir: string, entry = ENTRY): Promise<string> {
  const outfile = join(outDir, "sync-object.worker.mjs");
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "neutral",
    // capnweb's `workerd` build takes its RpcTarget from cloudflare:workers.
    conditions: ["workerd", "worker"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "warning",
  });
  return outfile;
}

export interface SyncObjectHost {
  /** Runs `op` in the object named `name`; rejects with the object's error message. */
  run<T = unknown>(name: string, op: SideOp): Promise<T>;
  /** The whole reply, with the object's incarnation id. */
  reply(name: string, op: SideOp): Promise<OpReply>;
  /** The workerd process running the object (a direct child of this process); undefined if not found. */
  pid: number | undefined;
  dispose(): Promise<void>;
}

export async function startSyncObject(scriptPath: string, persistDir: string): Promise<SyncObjectHost> {
  const before = new Set(workerdChildren());
  // Miniflare 5 takes a config-shaped form; these are the v4 options it converts.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      modules: true,
      scriptPath,
      // Module names are paths relative to this; the default (cwd) cannot reach a bundle in /tmp.
      modulesRoot: dirname(scriptPath),
      // Must not be newer than the pinned workerd (1.20261117.x accepts up to 2026-11-24).
      compatibilityDate: "2026-11-17",
      compatibilityFlags: ["nodejs_compat"],
      // What wrangler makes of a `new_sqlite_classes` migration.
      durableObjects: { SYNC: { className: "SyncObject", useSQLite: true } },
      resourcePersistencePath: persistDir,
    }),
  );
  await mf.ready;
  const reply = async (name: string, op: SideOp): Promise<OpReply> => {
    const response = await mf.dispatchFetch(`http://sync.local/${encodeURIComponent(name)}`, {
      method: "POST",
      body: JSON.stringify(op),
    });
    const text = await response.text();
    try {
      return JSON.parse(text) as OpReply;
    } catch {
      throw new Error(`workerd ${op.op}: HTTP ${response.status} ${text.slice(0, 500)}`);
    }
  };
  return {
    reply,
    async run<T>(name: string, op: SideOp): Promise<T> {
      const answer = await reply(name, op);
      if (answer.error) {
        throw Object.assign(new Error(`workerd ${op.op}: ${answer.error.message}`), { code: answer.error.code });
      }
      return answer.result as T;
    },
    pid: workerdChildren().find((pid) => !before.has(pid)),
    dispose: () => mf.dispose(),
  };
}

/** Process ids of this process's `workerd` children, from /proc (Linux; empty elsewhere). */
function workerdChildren(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`; comm may hold spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "workerd" && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

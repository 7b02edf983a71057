/**
 * The network namespace of an egress `http-gateway` container's commands:
 * only a loopback, on which one port — the HTTP proxy port — is a socket
 * computerd holds and tunnels to the host. Commands join it with `nsenter`;
 * they share it (as processes in a container share its network), but nothing
 * in it leads anywhere else.
 *
 * How it is made without a long-lived helper: `anchor.child.ts` starts in a new
 * namespace, listens there and passes the listening socket to computerd
 * (Node sends handles over IPC); computerd opens the anchor's
 * `/proc/<pid>/ns/net` and keeps that descriptor, which keeps the namespace
 * alive after the anchor exits. Commands enter it through
 * `/proc/<computerd's pid>/fd/<descriptor>`.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, readlinkSync } from "node:fs";
import type { Server } from "node:net";
import { fileURLToPath } from "node:url";

export interface EgressNamespace {
  /** What `nsenter --net=` takes to join the namespace. */
  readonly path: string;
  /** The proxy port on the namespace's 127.0.0.1. */
  readonly port: number;
  /** The listening socket in the namespace; its connections are the commands' proxy connections. */
  readonly listener: Server;
  close(): void;
}

const ANCHOR = fileURLToPath(new URL("./anchor.child.js", import.meta.url));
const ANCHOR_TIMEOUT_MS = 10_000;

export interface EgressNamespaceOptions {
  /** The anchor script; default the built anchor.child.js next to this module (tests running sources point at dist). */
  anchor?: string;
  node?: string;
}

export async function openEgressNamespace(options: EgressNamespaceOptions = {}): Promise<EgressNamespace> {
  const anchor = spawn("unshare", ["--net", "--", options.node ?? process.execPath, options.anchor ?? ANCHOR], {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  anchor.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  try {
    const { port, procPid, listener } = await new Promise<{ port: number; procPid: number; listener: Server }>(
      (resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the namespace anchor did not report")), ANCHOR_TIMEOUT_MS);
        anchor.once("message", (message: { port?: unknown; procPid?: unknown }, handle: unknown) => {
          clearTimeout(timer);
          if (typeof message?.port !== "number" || typeof message.procPid !== "number" || !handle) {
            reject(new Error("the namespace anchor sent no listener"));
          } else resolve({ port: message.port, procPid: message.procPid, listener: handle as Server });
        });
        anchor.once("exit", (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`the namespace anchor exited (${code ?? signal}): ${stderr.trim()}`));
        });
        anchor.once("error", (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const fd = openSync(`/proc/${procPid}/ns/net`, "r");
    const self = Number(readlinkSync("/proc/self"));
    return {
      path: `/proc/${self}/fd/${fd}`,
      port,
      listener,
      close() {
        listener.close();
        closeSync(fd);
      },
    };
  } finally {
    if (anchor.connected) anchor.disconnect();
  }
}

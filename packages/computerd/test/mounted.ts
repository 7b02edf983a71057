/**
 * What the FUSE test files that sync share: one daemon on a real mount for
 * the file (started before its tests, stopped after), an RPC client to it,
 * a Durable Object side (its own dofs store) to pull into and push from,
 * and a shell in the mount point.
 */
import { execFileSync } from "node:child_process";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "./daemon.js";

export interface Mounted {
  daemon: TestDaemon;
  client: WorkspaceClient;
  /** The Durable Object side's store, and its filesystem. */
  store: Database;
  doFs: WorkspaceFilesystem;
  /** Runs a bash script (`-euo pipefail`) in the mount point; its stdout. */
  sh(script: string): string;
}

/** Registers the file's beforeAll and afterAll; the fields are set once beforeAll ran. */
export function useMountedDaemon(env: Record<string, string>): Mounted {
  const mounted = {
    sh: (script: string) =>
      execFileSync("bash", ["-euo", "pipefail", "-c", script], {
        cwd: mounted.daemon.mountPoint,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
  } as Mounted;
  beforeAll(async () => {
    mounted.daemon = await startDaemon(env);
    mounted.client = await createWorkspaceClient({ url: `${mounted.daemon.url}/api` });
    mounted.store = openNodeDatabase();
    mounted.doFs = new WorkspaceFilesystem(mounted.store);
  });
  afterAll(async () => {
    await mounted.client?.close();
    await stopAll();
  });
  return mounted;
}

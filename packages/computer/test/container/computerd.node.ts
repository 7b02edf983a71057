/**
 * A standalone computerd for the `TestBackend` tests: `node <computerd>/dist/cli/main.js`
 * on 127.0.0.1 with an ephemeral port, a real FUSE mount at a fresh temporary
 * mount point and no secret (so callers may dial `/api` directly). Only the
 * process started here is stopped, by its pid.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface RunningComputerd {
  url: string;
  mountPoint: string;
  close(): Promise<void>;
}

const BOOT_TIMEOUT_MS = 20_000;

/** `hostEntry` is the resolved `@cloudflare/computerd/host` module; the CLI sits beside it. */
export async function startComputerd(hostEntry: string, log: string[]): Promise<RunningComputerd> {
  const entry = join(dirname(hostEntry), "..", "cli", "main.js");
  const mountPoint = mkdtempSync(join(tmpdir(), "computerd-test-backend-"));
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete env.RPC_CLIENT_SECRET;
  const child = spawn(process.execPath, [entry], {
    env: { ...env, PORT: "0", HOST: "127.0.0.1", MOUNT_POINT: mountPoint, FUSE_MOUNT: "auto" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const port = await listening(child, log);
  return {
    url: `http://127.0.0.1:${port}`,
    mountPoint,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      // computerd unmounts on SIGTERM; an empty directory is all that is left.
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}

function listening(child: ChildProcess, log: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`computerd did not start within ${BOOT_TIMEOUT_MS} ms\n${buffered.slice(-2000)}`));
    }, BOOT_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      for (const line of text.split("\n")) if (line.trim()) log.push(`[computerd] ${line}`);
      buffered += text;
      const match = /computerd listening host=\S+ port=(\d+)/.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      clearTimeout(timer);
      reject(new Error(`computerd exited during boot: ${code ?? signal}\n${buffered.slice(-2000)}`));
    };
    child.stderr?.on("data", onData);
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

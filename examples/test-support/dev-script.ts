/**
 * Running an example's `npm run dev` (its scripts/dev.mjs) as a user would:
 * on a free $PORT, until the Worker answers; then SIGTERM, and a check that
 * every process it started is gone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface DevRun {
  child: ChildProcess;
  base: string;
  port: number;
  /** stdout and stderr so far. */
  output(): string;
  /** Every live process started under the dev script. */
  descendants(): number[];
  /** SIGTERM; resolves with the exit code once the script exited. */
  stop(): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every live descendant of `pid`, from /proc. */
export function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface DevOptions {
  /** Extra environment for the script (on top of this process's and PORT). */
  env?: Record<string, string>;
}

/**
 * Starts the dev script and waits until the Worker answers; the test's own
 * timeout bounds the wait. A free port can be taken by a parallel test between
 * our probe and wrangler's bind, so a start that dies of exactly that is
 * tried again on another port (twice at most).
 */
export async function startDev(example: string, options: DevOptions = {}): Promise<DevRun> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevOnce(example, options);
    } catch (error) {
      if (attempt >= 3 || !String((error as Error).message).includes("Address already in use")) throw error;
    }
  }
}

async function startDevOnce(example: string, options: DevOptions): Promise<DevRun> {
  const port = await freePort();
  const chunks: string[] = [];
  const child = spawn(process.execPath, [join(example, "scripts", "dev.mjs")], {
    cwd: example,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}:\n${chunks.join("")}`);
    try {
      await (await fetch(base)).body?.cancel();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return {
    child,
    base,
    port,
    output: () => chunks.join(""),
    descendants: () => descendants(child.pid as number),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Waits until every pid is gone (the test's timeout bounds it): children may outlive the script a moment. */
export async function allGone(pids: number[]): Promise<void> {
  while (pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local container
 * host and `wrangler dev` on $PORT, a command runs in a container, and
 * SIGTERM stops wrangler, the host and every container process it started.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let dev: ChildProcess | undefined;

afterAll(async () => {
  if (dev && dev.exitCode === null && dev.signalCode === null) {
    const exited = once(dev, "exit");
    dev.kill("SIGTERM");
    await exited;
  }
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every live descendant of `pid`, from /proc. */
function descendants(pid: number): number[] {
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until wrangler dev answers; the test's own timeout bounds the wait. */
async function waitForWorker(base: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}`);
    try {
      await (await fetch(base)).body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

describe("examples/container npm run dev", () => {
  it("serves the routes with a local container host and cleans everything up on SIGTERM", async () => {
    const port = await freePort();
    const output: string[] = [];
    const child = spawn(process.execPath, [join(example, "scripts", "dev.mjs")], {
      cwd: example,
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    dev = child;
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    const base = `http://127.0.0.1:${port}`;
    await waitForWorker(base, child);

    const put = await fetch(`${base}/c/dev/file/workspace/in.txt`, { method: "PUT", body: "ping" });
    expect(put.status).toBe(204);
    const exec = await fetch(`${base}/c/dev/exec`, {
      method: "POST",
      body: JSON.stringify({ command: "cat in.txt > out.txt && cat out.txt" }),
    });
    expect(await exec.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "ping" });
    expect(await (await fetch(`${base}/c/dev/file/workspace/out.txt`)).text()).toBe("ping");
    expect(output.join("")).toMatch(/computerd host listening url=http:\/\/127\.0\.0\.1:\d+/);

    // wrangler, workerd, and the container (unshare + computerd) all hang off the dev script.
    const processes = descendants(child.pid as number);
    expect(processes.length).toBeGreaterThan(2);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(143);
    // Everything it started goes away. Not all at once: the host reports a container stopped when `unshare`
    // exits, and computerd (its pid 1) finishes its own shutdown — unmount included — a moment later.
    while (processes.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output.join("")).toMatch(/\] exited /);
  });
});

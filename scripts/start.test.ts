/**
 * `npm start` (scripts/start → examples/console's dev script → runWranglerDev) on a taken
 * port: one line saying what to set, no workerd stack trace, nothing left running.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["scripts/start"], { cwd: root, env: { ...process.env, ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const address = taken.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  port = address.port;
});

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
});

it("with PORT taken, npm start exits 1 with one line naming PORT", { timeout: 120_000 }, async () => {
  const { code, stderr } = await start({ PORT: String(port) });
  expect(code).toBe(1);
  const lines = stderr.trim().split("\n");
  expect(lines.at(-1)).toMatch(
    new RegExp(`^dev: 127\\.0\\.0\\.1:${port} is already in use; set PORT to a free port, e\\.g\\. PORT=\\d+$`),
  );
  expect(stderr).not.toMatch(/workerd|--port|\n\s+at /);
});

it("with PORT not a number, npm start exits 1 saying so", { timeout: 120_000 }, async () => {
  const { code, stderr } = await start({ PORT: "eighty" });
  expect(code).toBe(1);
  expect(stderr.trim().split("\n").at(-1)).toBe(
    "dev: PORT=eighty is not a port number; set PORT to one from 1 to 65535",
  );
});

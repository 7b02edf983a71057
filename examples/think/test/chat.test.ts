/**
 * `npm run chat` as a user runs it, driven as a child process: prompts go in
 * on stdin, the streamed answer (text, tool calls, exec output) comes out on
 * stdout, and the client exits once stdin ended and every prompt was
 * answered. The assistant is the example's Worker under Miniflare with the
 * demo model, worker-shell and a real computerd for container-shell.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useAssistantWorker } from "./assistant.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const worker = useAssistantWorker();

async function chat(name: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("npm", ["run", "--silent", "chat", "--", name], {
    cwd: example,
    env: { ...process.env, THINK_URL: worker.url().origin },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin.end(input);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("examples/think npm run chat", () => {
  it("streams the answers to piped prompts and exits when they are done", async () => {
    const { code, stdout, stderr } = await chat("frank", "hello there\nsecond message\n");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("connected to frank — model: demo model — scripted, not an LLM");
    expect(stdout).toContain("No model is configured");
    expect(stdout).toContain("⚙ write /workspace/chat/turn-1.md");
    expect(stdout).toContain("⚙ exec on worker-shell: ls chat && cat chat/turn-1.md");
    // exec output, line by line, then its exit code.
    expect(stdout).toContain("  │ # Turn 1\n  │ \n  │ hello there\n  └ exit 0\n");
    expect(stdout).toContain("⚙ exec on container-shell: uname -s && cat chat/*.md | wc -l | tee chat/lines.txt");
    expect(stdout).toContain("  │ Linux\n  │ 3\n");
    expect(stdout).toContain("This is turn 1 of our conversation.");
    expect(stdout).toContain("  │ # Turn 2\n  │ \n  │ second message\n");
    expect(stdout).toContain("This is turn 2 of our conversation.");
    // Turn 1's answer is complete before turn 2's tools start.
    expect(stdout.indexOf("This is turn 1")).toBeLessThan(stdout.indexOf("turn-2.md"));
  });

  it("picks up the stored conversation when it reconnects", async () => {
    await chat("gina", "first\n");
    const { stdout } = await chat("gina", "again\n");
    expect(stdout).toContain("connected to gina — model: demo model — scripted, not an LLM, 1 earlier turn(s)");
    expect(stdout).toContain("This is turn 2 of our conversation.");
  });

  it("says so when nothing is listening", async () => {
    const child = spawn(process.execPath, [join(example, "scripts", "chat.mjs")], {
      env: { ...process.env, THINK_URL: "http://127.0.0.1:9" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot reach ws:\/\/127\.0\.0\.1:9\/agents\/assistant\/me: .*is `npm run dev` running\?/);
  });
});

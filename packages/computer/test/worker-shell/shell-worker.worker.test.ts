/**
 * `ShellWorker` from `@cloudflare/computer/backends/worker-shell`, used as a Worker of the original's
 * exports and subclasses it: entrypoints of the test worker's own main module (main.worker.ts), each
 * handed to a `WorkerShellBackend` as an `external-runtime` source with props naming the Durable
 * Object, so every command runs in this Worker over the object's Workspace, no Dynamic Worker involved.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import type { ExecOptions } from "../../src/runtime/types.js";
import type { Workspace } from "../../src/workspace/workspace.worker.js";
import { workspaceOf } from "./harness.worker.js";

async function inOwnShell(body: (run: Run, workspace: Workspace) => Promise<void>): Promise<void> {
  const stub = env.OWN_SHELL_WORKSPACE.get(env.OWN_SHELL_WORKSPACE.newUniqueId());
  await runInDurableObject(stub, async (instance) => {
    const workspace = workspaceOf(instance);
    await workspace.fs.mkdir("/workspace/project", { recursive: true });
    const run: Run = async (backend, command, options = {}) => {
      const result = await (await workspace.runtime.exec(command, { ...options, backend, encoding: "utf8" })).result();
      return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
    };
    await body(run, workspace);
  });
}

type Run = (
  backend: string,
  command: string,
  options?: ExecOptions<"utf8">,
) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

describe("a Worker's own ShellWorker", () => {
  test("a subclass adds its commands next to just-bash's and the host's, with its default cwd", async () => {
    await inOwnShell(async (run, workspace) => {
      expect(await run("project", "hello a b")).toEqual({
        stdout: "hello a b from /workspace/project\n",
        stderr: "",
        exitCode: 0,
      });
      expect(await run("project", "echo one > a.txt && mkdir sub && entries")).toMatchObject({
        stdout: "a.txt,sub\n",
        exitCode: 0,
      });
      expect(await workspace.fs.readFile("/workspace/project/a.txt", "utf8")).toBe("one\n");
      // The whole of just-bash is bundled: an optional group's command loads on first use.
      expect(await run("project", `echo '{"n":[1,2]}' | jq '.n | add'`)).toMatchObject({ stdout: "3\n", exitCode: 0 });
      // The host commands are there too; this workspace has no git.
      const git = await run("project", "git status");
      expect(git.exitCode).toBe(1);
      expect(git.stderr).toMatch(/^git: .*not configured/);
      expect((await run("project", "sleep 5", { timeoutMs: 100 })).exitCode).toBe(124);
    });
  });

  test("the class exported as it is runs in /workspace; without env.HOST or props it says what it needs", async () => {
    await inOwnShell(async (run) => {
      expect(await run("plain", "pwd; echo plain | tr a-z A-Z")).toEqual({
        stdout: "/workspace\nPLAIN\n",
        stderr: "",
        exitCode: 0,
      });
      const unplaced = await run("unplaced", "true");
      expect(unplaced.exitCode).toBe(1);
      expect(unplaced.stderr).toMatch(/^ShellWorker needs env\.HOST .* or props \{ binding, id \}/);
    });
  });

  test("bashFactoryOverride runs instead of just-bash, given the command, its cwd and the custom commands", async () => {
    await inOwnShell(async (run) => {
      expect(await run("recording", "anything at all", { cwd: "/workspace/project" })).toEqual({
        stdout: "anything at all in /workspace/project; commands git,assets,artifacts\n",
        stderr: "",
        exitCode: 3,
      });
    });
  });
});

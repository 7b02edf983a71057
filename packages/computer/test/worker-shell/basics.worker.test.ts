/**
 * The worker-shell on a real Workspace in a Durable Object, through the real
 * Worker Loader (`docs/worker-shell.md`): runs, events, ids, env and stdin.
 */
import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { type ShellWorkerLoaderLike, WorkerShellBackend } from "../../src/backends/worker-shell/index.js";
import type { ExecEvent } from "../../src/runtime/types.js";
import { inShell } from "./harness.worker.js";

async function events(stream: ReadableStream<ExecEvent>): Promise<ExecEvent[]> {
  const all: ExecEvent[] = [];
  for await (const event of stream) all.push(event);
  return all;
}

describe("worker-shell basics", () => {
  test("1: a host write is read by cat in the shell", async () => {
    await inShell(async ({ write, run }) => {
      await write("/workspace/a.txt", "from the host\n");
      const result = await run("cat a.txt");
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "from the host\n", stderr: "" });
    });
  });

  test("2: a shell write is read by the host at once; nothing pushed or pulled", async () => {
    await inShell(async ({ read, run }) => {
      const result = await run("echo hi > b.txt");
      expect(result).toMatchObject({ exitCode: 0, pushed: 0, pulled: 0 });
      expect(result.sync).toEqual({ status: "complete", applied: 0, skipped: [] });
      expect(await read("/workspace/b.txt")).toBe("hi\n");
    });
  });

  test("3: a failing command exits non-zero with stderr; output comes as stdout, stderr, exit (seq 1..3)", async () => {
    await inShell(async ({ workspace, run }) => {
      const failed = await run("ls /nope");
      expect(failed.status).toBe("failed");
      expect(failed.exitCode).not.toBe(0);
      expect(failed.stderr).toContain("/nope");

      const handle = await workspace.runtime.exec("echo out; echo err >&2", { id: "three", encoding: "utf8" });
      expect(await events(handle)).toEqual([
        { id: "three", seq: 1, name: "stdout", value: "out\n" },
        { id: "three", seq: 2, name: "stderr", value: "err\n" },
        { id: "three", seq: 3, name: "exit", code: 0 },
      ]);
    });
  });

  test("4: timeoutMs shorter than the command gives exit 124 'Execution timed out'", async () => {
    await inShell(async ({ run }) => {
      const result = await run("sleep 5; echo never", { timeoutMs: 100 });
      expect(result).toMatchObject({ status: "failed", exitCode: 124, stdout: "", stderr: "Execution timed out\n" });
    });
  });

  test("5: getExec is ENOENT (no reattach); the ShellWorker itself says so too", async () => {
    await inShell(async ({ workspace, run, instance }) => {
      await run("true", { id: "done" });
      await expect(workspace.runtime.getExec("done")).rejects.toMatchObject({ code: "ENOENT" });
      const backend = new WorkerShellBackend({
        loader: env.LOADER,
        workspace: { binding: "SHELL_WORKSPACE", id: "unused" },
        ctx: { exports: { WorkspaceServiceProxy: () => ({}) } },
      });
      const loader: ShellWorkerLoaderLike = env.LOADER;
      const entrypoint = loader
        .get(backend.loaderId as string, () => backend.workerCode())
        .getEntrypoint("ShellWorker") as unknown as { getExec(args: { id: string }): Promise<unknown> };
      const error = await entrypoint.getExec({ id: "any" }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(String(error)).toMatch(/ENOENT/);
      expect(instance).toBeDefined();
    });
  });

  test("5: a WorkerShellBackend given only a loader, or a source mixed with a loader, throws", () => {
    expect(() => new WorkerShellBackend({ loader: env.LOADER } as never)).toThrow(/needs workspace .*ctx/);
    expect(
      () =>
        new WorkerShellBackend({
          loader: env.LOADER,
          source: { type: "external-runtime", connect: () => ({}) as never },
        } as never),
    ).toThrow(/either source or loader/);
    expect(() => new WorkerShellBackend({ source: { type: "nope" } } as never)).toThrow(/unknown source type/);
  });

  test("killExec stops a running command with exit 130; a busy id is EEXEC_BUSY", async () => {
    await inShell(async ({ workspace }) => {
      const handle = await workspace.runtime.exec("sleep 30", { id: "long", encoding: "utf8" });
      await expect(workspace.runtime.exec("true", { id: "long" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
      await workspace.runtime.killExec("long");
      const result = await handle.result();
      expect(result).toMatchObject({ status: "cancelled", exitCode: 130 });
      // The id is free again once the run settled; an unknown id is not an error.
      expect((await (await workspace.runtime.exec("true", { id: "long" })).result()).exitCode).toBe(0);
      await workspace.runtime.killExec("never-ran");
    });
  });

  test("cwd defaults to /workspace; env and stdin are per call", async () => {
    await inShell(async ({ run }) => {
      expect((await run("pwd")).stdout).toBe("/workspace\n");
      await run("mkdir -p sub");
      expect((await run("pwd", { cwd: "/workspace/sub" })).stdout).toBe("/workspace/sub\n");
      // A named cwd that is missing or no directory runs nothing, with the message container-shell gives.
      for (const [cwd, code] of [
        ["/workspace/nope", "ENOENT: no such file or directory"],
        ["/workspace/sub/nope/deeper", "ENOENT: no such file or directory"],
      ]) {
        const failed = await run("echo RAN; pwd", { cwd });
        expect(failed).toMatchObject({ exitCode: -1, stdout: "", stderr: `spawn failed: ${code}, chdir '${cwd}'\n` });
      }
      await run("echo x > sub/file");
      expect(await run("echo RAN", { cwd: "/workspace/sub/file" })).toMatchObject({
        exitCode: -1,
        stdout: "",
        stderr: "spawn failed: ENOTDIR: not a directory, chdir '/workspace/sub/file'\n",
      });
      const piped = await run('echo "$WHO"; cat', { env: { WHO: "x" }, stdin: "piped" });
      expect(piped.stdout).toBe("x\npiped");
      expect((await run('echo "[$WHO]"')).stdout).toBe("[]\n");
    });
  });

  test("the adapter: cp -r, mv, appends, symlinks and /dev/null on the workspace", async () => {
    await inShell(async ({ run, read, workspace }) => {
      const script = [
        "mkdir -p d/e && echo one > d/e/f && chmod 755 d/e/f",
        "cp -r d d2 && mv d2 d3",
        "echo two >> d3/e/f",
        "ln -s d3/e/f link && cat link",
        "echo gone > /dev/null && cat /dev/null",
        "ln d3/e/f hard || echo 'no hardlinks'",
        "cd d3 && pwd -P",
      ].join("\n");
      const result = await run(script);
      expect(result.stdout).toBe("one\ntwo\nno hardlinks\n/workspace/d3\n");
      expect(await read("/workspace/d/e/f")).toBe("one\n");
      expect(await read("/workspace/d3/e/f")).toBe("one\ntwo\n");
      expect((await workspace.fs.stat("/workspace/d3/e/f")).mode).toBe(0o755);
      await expect(workspace.fs.stat("/workspace/d2")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });
});

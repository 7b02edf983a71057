/**
 * The worker-shell against the Workspace around it: isolation between
 * objects (6), durability across a restart, the remote client (42, 43), the
 * GNU pipeline comparison, and bad input that must leave the workspace intact.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, test } from "vitest";
import { getWorkspace } from "../../src/workspace/client.js";
import { CORPUS_ROOT, corpusFiles, PIPELINES, type PipelineName } from "./corpus.js";
import { fixtureFor, inShell } from "./harness.worker.js";

describe("worker-shell and its workspace", () => {
  test("6: two objects' shells see only their own files", async () => {
    const one = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId());
    const two = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId());
    await inShell(async ({ run }) => {
      expect((await run("echo one > mine-1.txt && ls")).stdout).toBe("mine-1.txt\n");
    }, one);
    await inShell(async ({ run }) => {
      expect((await run("echo two > mine-2.txt && ls")).stdout).toBe("mine-2.txt\n");
      expect((await run("cat mine-1.txt")).exitCode).not.toBe(0);
    }, two);
    await inShell(async ({ run }) => {
      expect((await run("ls")).stdout).toBe("mine-1.txt\n");
    }, one);
  });

  test("shell writes are in workspace.fs at once and survive a restart of the object", async () => {
    const id = env.SHELL_WORKSPACE.newUniqueId();
    const stub = env.SHELL_WORKSPACE.get(id);
    const before = await stub.getIncarnation();
    await inShell(async ({ run, read }) => {
      await run("mkdir -p notes && printf 'kept\\n' > notes/n.txt");
      expect(await read("/workspace/notes/n.txt")).toBe("kept\n");
    }, stub);
    await abortAllDurableObjects();
    const again = env.SHELL_WORKSPACE.get(id);
    expect(await again.getIncarnation()).not.toBe(before);
    await runInDurableObject(again, async (instance, state) => {
      const { read, run } = fixtureFor(instance, state);
      expect(await read("/workspace/notes/n.txt")).toBe("kept\n");
      expect((await run("cat notes/n.txt")).stdout).toBe("kept\n");
    });
  });

  test("42: a remote client: result() after streaming started throws; dispose releases; fs writes reach the object", async () => {
    const stub = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId());
    const client = await getWorkspace(stub);
    await client.fs.mkdir("/workspace", { recursive: true });
    await client.fs.writeFile("/workspace/remote.txt", "via the client\n");
    const handle = await client.runtime.exec("cat remote.txt", { encoding: "utf8" });
    const reader = handle.getReader();
    const first = await reader.read();
    expect(first.value).toMatchObject({ name: "stdout", value: "via the client\n" });
    expect(() => handle.result()).toThrow();
    reader.releaseLock();
    client[Symbol.dispose]();
    await runInDurableObject(stub, async (instance, state) => {
      expect(await fixtureFor(instance, state).read("/workspace/remote.txt")).toBe("via the client\n");
    });
  });

  test("43: a tagged template is quoted before it is sent, with a utf8 result", async () => {
    const stub = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId());
    const client = await getWorkspace(stub);
    await client.fs.mkdir("/workspace", { recursive: true });
    await client.fs.writeFile("/workspace/a b", "spaced ✓\n");
    const result = await (await client.runtime.exec`cat ${"a b"}`).result();
    expect(result).toMatchObject({ exitCode: 0, stdout: "spaced ✓\n" });
    client[Symbol.dispose]();
  });

  test("a 10,000-line grep -rn | sort | uniq -c pipeline matches GNU grep, sort and uniq on the same files", async () => {
    const gnu = inject("gnuPipelines");
    await inShell(async ({ workspace, run }) => {
      for (const { path, text } of corpusFiles()) {
        const full = `${CORPUS_ROOT}/${path}`;
        await workspace.fs.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
        await workspace.fs.writeFile(full, text);
      }
      expect((await run("cat $(find . -name '*.ts') | wc -l", { cwd: CORPUS_ROOT })).stdout.trim()).toBe("10000");
      for (const [name, pipeline] of Object.entries(PIPELINES) as Array<[PipelineName, string]>) {
        const result = await run(pipeline, { cwd: CORPUS_ROOT });
        expect(result.exitCode, name).toBe(0);
        expect(result.stdout.length, name).toBeGreaterThan(100);
        expect(result.stdout, name).toBe(gnu[name]);
      }
    });
  });
});

describe("bad input ends cleanly and leaves the workspace intact", () => {
  async function intact(run: (command: string) => Promise<{ stdout: string; exitCode: number }>): Promise<void> {
    expect(await run("cat keep.txt; echo ok")).toMatchObject({ exitCode: 0, stdout: "precious\nok\n" });
  }

  test("an unterminated quote is a syntax error (exit 2)", async () => {
    await inShell(async ({ write, run }) => {
      await write("/workspace/keep.txt", "precious\n");
      const result = await run("echo 'abc");
      expect(result).toMatchObject({ status: "failed", exitCode: 2, stdout: "" });
      expect(result.stderr).toMatch(/unexpected EOF/);
      await intact(run);
    });
  });

  test("a 2 MiB command line is refused by the parser (exit 2)", async () => {
    await inShell(async ({ write, run }) => {
      await write("/workspace/keep.txt", "precious\n");
      const result = await run(`x=${"a".repeat(2 * 1024 * 1024)}; echo "$x" > keep.txt`);
      expect(result).toMatchObject({ exitCode: 2, stdout: "" });
      expect(result.stderr).toMatch(/too large/);
      await intact(run);
    });
  });

  test("a runaway while-true loop is stopped by timeoutMs (exit 124)", async () => {
    await inShell(async ({ write, run }) => {
      await write("/workspace/keep.txt", "precious\n");
      const result = await run("while true; do sleep 0.01; done", { timeoutMs: 300 });
      expect(result).toMatchObject({ status: "failed", exitCode: 124, stderr: "Execution timed out\n" });
      await intact(run);
    });
  });

  test("a loop that never yields is bounded by just-bash's command budget (exit 126)", async () => {
    await inShell(async ({ write, run }) => {
      await write("/workspace/keep.txt", "precious\n");
      const result = await run("while true; do :; done", { timeoutMs: 300 });
      expect(result.exitCode).toBe(126);
      expect(result.stderr).toMatch(/too many commands/);
      await intact(run);
    });
  });

  test("output flooding past 1 MiB is cut at the cap (exit 126)", async () => {
    await inShell(async ({ write, run, read }) => {
      await write("/workspace/keep.txt", "precious\n");
      const result = await run("for i in 1 2 3 4 5 6 7 8; do seq 1 90000; done");
      expect(result.exitCode).toBe(126);
      // Bounded output (0.8.0): the result keeps the tail; the saved file holds all the shell let through.
      const saved = result.truncated?.stdout;
      const all = saved?.status === "saved" ? await read(saved.path) : "";
      expect(new TextEncoder().encode(all).byteLength).toBeLessThanOrEqual(1024 * 1024);
      expect(all.startsWith("1\n2\n3\n")).toBe(true);
      expect(all.endsWith(result.stdout)).toBe(true);
      expect(result.stderr).toMatch(/output size exceeded/);
      await intact(run);
    });
  });
});

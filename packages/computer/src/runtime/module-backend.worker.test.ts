/**
 * A module backend written the way the original's users write one
 * (`protocol: "module"`, `connect(host)` returning a handle that answers
 * each execution with an envelope), through `workspace.runtime` in a real
 * Durable Object.
 */
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../test/workspace-harness.worker.js";
import type {
  ModuleExecutionEnvelope,
  ModuleExecutionInput,
  WorkspaceModuleBackend,
  WorkspaceModuleBackendHandle,
  WorkspaceModuleBackendHost,
  WorkspaceRuntimeEvent,
} from "../index.js";
import { Workspace } from "../workspace/workspace.worker.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * `cat <path>` against the workspace files, `wait` (runs until killed) and
 * `fail` (exit 2). It keeps each execution's events so `getExec` replays
 * them, and records what the runtime sends it.
 */
class CatBackend implements WorkspaceModuleBackend {
  readonly protocol = "module";
  readonly type = "cat";
  readonly connects: WorkspaceModuleBackendHost[] = [];
  readonly calls: { name: string; input: unknown }[] = [];
  failNextConnect = false;
  closed = 0;
  /** Set to report a sync around each execution, as a backend with its own copy of the files would. */
  sync: ModuleExecutionEnvelope["sync"] | undefined;
  readonly #logs = new Map<string, WorkspaceRuntimeEvent[]>();
  readonly #waiting = new Map<string, (code: number) => void>();

  constructor(
    readonly id = "cat",
    readonly callable = true,
  ) {}

  async connect(host: WorkspaceModuleBackendHost): Promise<WorkspaceModuleBackendHandle> {
    if (this.failNextConnect) {
      this.failNextConnect = false;
      throw new Error("cat: connect refused");
    }
    this.connects.push(host);
    const runtimeId = `runtime-${this.connects.length}`;
    const backend = this;
    return {
      async exec(input: ModuleExecutionInput): Promise<ModuleExecutionEnvelope> {
        backend.calls.push({ name: "exec", input });
        const id = input.id ?? crypto.randomUUID();
        const events = await backend.#run(host, id, input);
        return { id, runtimeId, events, ...(backend.sync ? { sync: backend.sync } : {}) };
      },
      async getExec(input) {
        backend.calls.push({ name: "getExec", input });
        const log = backend.#logs.get(input.id);
        if (!log) throw Object.assign(new Error(`no such execution: ${input.id}`), { code: "ENOENT" });
        const after = input.after === "tail" ? log.length - 1 : (input.after ?? 0);
        return { id: input.id, runtimeId, events: streamOf(log.filter((event) => event.seq > after)) };
      },
      async killExec(input) {
        backend.calls.push({ name: "killExec", input });
        backend.#waiting.get(input.id)?.(143);
      },
      async disposeExec(input) {
        backend.calls.push({ name: "disposeExec", input });
        backend.#logs.delete(input.id);
      },
      async close() {
        backend.closed += 1;
      },
    };
  }

  async #run(
    host: WorkspaceModuleBackendHost,
    id: string,
    input: ModuleExecutionInput,
  ): Promise<ReadableStream<WorkspaceRuntimeEvent>> {
    const log: WorkspaceRuntimeEvent[] = [];
    this.#logs.set(id, log);
    const [command, path = ""] = input.source.split(" ");
    if (command === "wait") {
      let exit!: (code: number) => void;
      const done = new Promise<number>((resolve) => {
        exit = resolve;
      });
      this.#waiting.set(id, exit);
      return new ReadableStream({
        async pull(controller) {
          const code = await done;
          const event: WorkspaceRuntimeEvent = { id, seq: 1, name: "exit", code };
          log.push(event);
          controller.enqueue(event);
          controller.close();
        },
      });
    }
    if (command === "fail") {
      log.push({ id, seq: 1, name: "stderr", value: bytes("cat: failing\n") });
      log.push({ id, seq: 2, name: "exit", code: 2 });
      return streamOf(log);
    }
    const text = await host.fs.readFile(`${input.cwd ?? "/"}/${path}`.replace(/\/+/g, "/"), "utf8");
    // A multi-byte character split across two events: the runtime's decoder must join it.
    const split = bytes(text);
    const cut = Math.max(1, split.byteLength - 1);
    log.push({ id, seq: 1, name: "stdout", value: split.slice(0, cut) });
    log.push({ id, seq: 2, name: "stdout", value: split.slice(cut) });
    log.push({ id, seq: 3, name: "stderr", value: bytes(`${split.byteLength} bytes\n`) });
    log.push({
      id,
      seq: 4,
      name: "exit",
      code: 0,
      ...(input.input === undefined ? {} : { result: { input: input.input, bytes: split.byteLength } }),
    });
    return streamOf(log);
  }
}

function streamOf(events: WorkspaceRuntimeEvent[]): ReadableStream<WorkspaceRuntimeEvent> {
  return new ReadableStream({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  });
}

describe("module backends (the original's protocol: module)", () => {
  it("runs an execution through workspace.runtime: host fs, utf8 across events, input and result", async () => {
    await inWorkspace(async ({ storage }) => {
      const cat = new CatBackend();
      const workspace = new Workspace({ storage, backends: [cat] });
      await workspace.fs.mkdir("/work");
      await workspace.fs.writeFile("/work/a.txt", "héllo ✓");
      expect(cat.connects).toHaveLength(0);
      expect(workspace.runtime.backends).toEqual(["cat"]);
      expect(workspace.runtime.isCallable("cat")).toBe(true);

      const handle = await workspace.runtime.exec("cat a.txt", {
        cwd: "/work",
        encoding: "utf8",
        input: { n: 1 },
        env: { A: "1" },
        stdin: "in",
        timeoutMs: 5000,
      });
      expect(handle.backend).toBe("cat");
      const result = await handle.result();
      expect(result).toEqual({
        status: "completed",
        exitCode: 0,
        stdout: "héllo ✓",
        stderr: "10 bytes\n",
        value: { input: { n: 1 }, bytes: 10 },
        pushed: 0,
        pulled: 0,
        skipped: [],
        sync: { status: "complete", applied: 0, skipped: [] },
      });
      // The host is the workspace's own database and filesystem; unset git rejects when called, and
      // artifacts is the Workspace's unconfigured client, whose CLI answers "not configured" (exit 1).
      expect(cat.connects).toHaveLength(1);
      expect(cat.connects[0]).toMatchObject({ db: workspace.db, fs: workspace.fs });
      const { git, artifacts } = cat.connects[0] as WorkspaceModuleBackendHost;
      await expect(git.cli({ args: ["status"] } as never)).rejects.toThrow(/git is not configured/);
      expect(await artifacts.cli({ argv: ["repo", "list"] })).toEqual({
        stdout: "",
        stderr: "artifacts repo list: Workspace Artifacts binding is not configured\n",
        exitCode: 1,
      });
      expect(await Promise.resolve(git)).toBe(git);
      expect(cat.calls[0]).toEqual({
        name: "exec",
        input: {
          id: handle.id,
          source: "cat a.txt",
          cwd: "/work",
          input: { n: 1 },
          env: { A: "1" },
          stdin: "in",
          timeoutMs: 5000,
        },
      });

      // Raw bytes without an encoding, a tagged template, and a failing command.
      const raw = await (await workspace.runtime.exec("cat /work/a.txt")).result();
      expect(new TextDecoder().decode(raw.stdout)).toBe("héllo ✓");
      expect("value" in raw).toBe(false);
      const file = "a.txt";
      expect((await (await workspace.runtime.exec`cat /work/${file}`).result()).stdout).toBe("héllo ✓");
      expect(await (await workspace.runtime.exec("fail", { encoding: "utf8" })).result()).toMatchObject({
        status: "failed",
        exitCode: 2,
        stderr: "cat: failing\n",
      });
      // One connection serves every call.
      expect(cat.connects).toHaveLength(1);
    });
  });

  it("streams events, replays with getExec, kills and disposes with the execution's runtime id", async () => {
    await inWorkspace(async ({ storage }) => {
      const cat = new CatBackend();
      const workspace = new Workspace({ storage, backends: [cat] });
      await workspace.fs.writeFile("/b.txt", "bee");
      const handle = await workspace.runtime.exec("cat /b.txt", { id: "run-1", encoding: "utf8" });
      const seen: WorkspaceRuntimeEvent<"utf8">[] = [];
      for await (const event of handle) seen.push(event);
      expect(seen.map((event) => event.name)).toEqual(["stdout", "stdout", "stderr", "exit"]);
      expect(seen.filter((e) => e.name === "stdout").map((e) => (e as { value: string }).value)).toEqual(["be", "e"]);

      const replay = await workspace.runtime.getExec("run-1", { encoding: "utf8" });
      expect((await replay.result()).stdout).toBe("bee");
      const tail = await workspace.runtime.getExec("run-1", { resume: 2 });
      const after: number[] = [];
      for await (const event of tail) after.push(event.seq);
      expect(after).toEqual([3, 4]);
      expect(cat.calls.filter((call) => call.name === "getExec").map((call) => call.input)).toEqual([
        { id: "run-1", runtimeId: "runtime-1" },
        { id: "run-1", after: 2, runtimeId: "runtime-1" },
      ]);

      const waiting = await workspace.runtime.exec("wait", { id: "run-2" });
      await workspace.runtime.killExec("run-2", { signal: "SIGINT" });
      expect(await waiting.result()).toMatchObject({ status: "cancelled", exitCode: 143 });
      await workspace.runtime.disposeExec("run-1");
      await expect(workspace.runtime.getExec("run-1")).rejects.toThrow(/no such execution: run-1/);
      expect(cat.calls.filter((call) => call.name !== "exec" && call.name !== "getExec")).toEqual([
        { name: "killExec", input: { id: "run-2", signal: "SIGINT", runtimeId: "runtime-1" } },
        { name: "disposeExec", input: { id: "run-1", runtimeId: "runtime-1" } },
      ]);
    });
  });

  it("reports the sync an envelope carries", async () => {
    await inWorkspace(async ({ storage }) => {
      const cat = new CatBackend();
      const skipped = [{ path: "/ro/x", mountRoot: "/ro", op: "write" as const, reason: "read-only" as const }];
      cat.sync = {
        pushed: 3,
        outcome: Promise.resolve({ applied: 2, skipped, sync: { status: "complete", applied: 2, skipped } }),
      };
      const workspace = new Workspace({ storage, backends: [cat] });
      await workspace.fs.writeFile("/c.txt", "c");
      expect(await (await workspace.runtime.exec("cat /c.txt")).result()).toMatchObject({
        pushed: 3,
        pulled: 2,
        skipped,
        sync: { status: "complete", applied: 2, skipped },
      });
      // A rejected outcome is an outcome, not an exception.
      cat.sync = { pushed: 1, outcome: Promise.reject(new Error("pull failed: token=abc")) };
      expect(await (await workspace.runtime.exec("cat /c.txt")).result()).toMatchObject({
        status: "completed",
        pushed: 1,
        pulled: 0,
        sync: { status: "pending", applied: 0, error: "Error: pull failed: token=[redacted]" },
      });
    });
  });

  it("connects once on ready(id), retries a failed connect, refuses input when not callable, closes the handle", async () => {
    await inWorkspace(async ({ storage }) => {
      const cat = new CatBackend();
      cat.failNextConnect = true;
      const plain = new CatBackend("plain", false);
      const workspace = new Workspace({ storage, backends: [cat, plain] });
      await expect(workspace.ready("cat")).rejects.toThrow("cat: connect refused");
      await workspace.ready("cat");
      await workspace.ready("cat");
      expect(cat.connects).toHaveLength(1);
      expect(workspace.runtime.isCallable("plain")).toBe(false);
      await expect(workspace.runtime.exec("cat /x", { backend: "plain", input: 1 })).rejects.toThrow(
        /Backend "plain" is not callable/,
      );
      expect(plain.connects).toHaveLength(0);
      // push/pull have nothing to do on a module backend.
      expect(await workspace.push("cat")).toBe(0);
      await workspace.close();
      expect(cat.closed).toBe(1);
      expect(plain.closed).toBe(0);
    });
  });

  it("refuses a module backend without connect, and a duplicate id, at construction", async () => {
    await inWorkspace(async ({ storage }) => {
      const broken = { protocol: "module", id: "x", type: "x" } as unknown as WorkspaceModuleBackend;
      expect(() => new Workspace({ storage, backends: [broken] })).toThrow(/module backend needs connect\(host\)/);
      expect(() => new Workspace({ storage, backends: [new CatBackend(), new CatBackend()] })).toThrow(
        /Duplicate backend id "cat"/,
      );
    });
  });
});

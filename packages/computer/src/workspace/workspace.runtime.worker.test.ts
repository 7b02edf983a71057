/**
 * The runtime through a real Workspace in a Durable Object, with FakeShellBackend
 * as the command backend: routing, statuses, the sync bracket and its
 * failures. A number in a test name is a stable case id; `docs/runtime.md` describes the behavior.
 */
import { describe, expect, it } from "vitest";
import { FakeShellBackend } from "../../test/fake-shell/backend.js";
import { inWorkspace } from "../../test/workspace-harness.worker.js";
import { Workspace } from "./workspace.worker.js";

const utf8 = { encoding: "utf8" } as const;

describe("routing and validation", () => {
  it("(1) runs on the first backend when none is named", async () => {
    await inWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec("echo hi", utf8);
      expect(handle.backend).toBe("test-shell");
      const result = await handle.result();
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "hi\n", stderr: "" });
      expect("value" in result).toBe(false);
    });
  });

  it("(2) maps exit codes to statuses", async () => {
    await inWorkspace(async ({ workspace }) => {
      expect(await (await workspace.runtime.exec("exit 3")).result()).toMatchObject({
        status: "failed",
        exitCode: 3,
      });
      for (const code of [143, 137, 130, 129]) {
        const result = await (await workspace.runtime.exec(`exit ${code}`)).result();
        expect(result).toMatchObject({ status: "cancelled", exitCode: code });
      }
    });
  });

  it("(11) rejects bad calls before anything reaches the backend", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await expect(workspace.runtime.exec("echo", { input: { n: 1 } })).rejects.toThrow(
        /Backend "test-shell" is not callable/,
      );
      await expect(workspace.runtime.exec("echo", { id: "" })).rejects.toThrow(/non-empty/);
      await expect(workspace.runtime.exec("echo", { id: "é".repeat(129) })).rejects.toThrow(/at most 256 UTF-8 bytes/);
      await expect(workspace.runtime.exec("echo", { backend: "nope" })).rejects.toMatchObject({
        code: "ENOBACKEND",
        message: 'Unknown backend "nope"; configured backends: "test-shell"',
      });
      await expect(workspace.runtime.exec("echo", { cwd: "workspace" })).rejects.toThrow(/absolute/);
      await expect(workspace.runtime.exec("echo", { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
      await expect(workspace.runtime.getExec("x", { resume: "middle" as "tail" })).rejects.toThrow(/resume/);
      expect(backend.calls.connect).toBe(0);
      expect(backend.calls["shell.exec"]).toBe(0);
      // An id of exactly 256 bytes is fine.
      const ok = await workspace.runtime.exec("true", { id: "é".repeat(128) });
      expect((await ok.result()).exitCode).toBe(0);
    });
  });

  it("(11) refuses duplicate backend ids and explains a filesystem-only Workspace", async () => {
    await inWorkspace(async ({ storage }) => {
      expect(() => new Workspace({ storage, backends: [new FakeShellBackend(), new FakeShellBackend()] })).toThrow(
        /Duplicate backend id "test-shell"/,
      );
      const filesOnly = new Workspace({ storage });
      await expect(filesOnly.runtime.exec("echo hi")).rejects.toMatchObject({ code: "ENOBACKEND" });
      await expect(filesOnly.runtime.exec("echo hi")).rejects.toThrow(/filesystem-only/);
      expect(filesOnly.runtime.isCallable("test-shell")).toBe(false);
      await filesOnly.fs.writeFile("/still-works.txt", "yes");
      expect(await filesOnly.fs.readFile("/still-works.txt", "utf8")).toBe("yes");
      // Syncing has nothing to do without backends, as in the original; naming one still fails.
      expect(await filesOnly.push()).toBe(0);
      expect(await filesOnly.pull()).toEqual({ status: "complete", applied: 0, skipped: [] });
      await expect(filesOnly.push("test-shell")).rejects.toMatchObject({ code: "ENOBACKEND" });
    });
  });

  it("adopts a command backend in the original's shape: no kind, connect(host), a handle without runtimeId/sync/closed", async () => {
    await inWorkspace(async ({ storage }) => {
      const inner = new FakeShellBackend();
      const hosts: unknown[] = [];
      const plain = {
        id: "plain",
        type: "test",
        async connect(host: { db: unknown; fs: unknown }) {
          hosts.push(host);
          const { rpc, close } = await inner.connect();
          return { rpc, close };
        },
      };
      const workspace = new Workspace({ storage, backends: [plain] });
      // The wrapped FakeShellBackend serves the same storage-backed peer; it needs the workspace's context too.
      inner.attach({
        db: workspace.db,
        fs: workspace.fs,
        now: Date.now,
        git: () => workspace.git,
        artifacts: () => workspace.artifacts,
      });
      const handle = await workspace.runtime.exec("echo adopted > /o.txt; cat /o.txt", utf8);
      expect(handle.backend).toBe("plain");
      expect(await handle.result()).toMatchObject({ status: "completed", stdout: "adopted\n" });
      expect(hosts).toHaveLength(1);
      expect(hosts[0]).toMatchObject({ db: workspace.db, fs: workspace.fs });
      // The default sync is "remote": the bracket pulled the file the command wrote on the peer.
      expect(await workspace.fs.readFile("/o.txt", "utf8")).toBe("adopted\n");
      // Unset git is a client whose calls reject, as the original's disabled client does.
      const { git } = hosts[0] as { git: { status(): Promise<unknown> } };
      await expect(git.status()).rejects.toMatchObject({ code: "ENOTCONFIGURED" });
      await expect(workspace.runtime.exec("x", { input: 1 })).rejects.toThrow(/not callable/);
    });
  });

  it("rejects an execution a backend ran under another id than the one it was given (EEXEC_ID)", async () => {
    await inWorkspace(async ({ storage }) => {
      const empty = () => new ReadableStream({ start: (controller) => controller.close() });
      let canceled = 0;
      const events = () => new ReadableStream({ cancel: () => void canceled++ });
      const direct = {
        kind: "direct" as const,
        id: "direct",
        type: "test",
        callable: false,
        exec: async () => ({ id: "not-yours", events: events() }),
        getExec: async () => ({ id: "x", events: empty() }),
        killExec: async () => {},
        disposeExec: async () => {},
      };
      const inner = new FakeShellBackend();
      const command = {
        id: "command",
        type: "test",
        async connect() {
          const { rpc, close } = await inner.connect();
          const shell = {
            ...rpc.shell,
            exec: async (request: Parameters<typeof rpc.shell.exec>[0]) => {
              const started = await rpc.shell.exec(request);
              return { id: `${started.id}-renamed`, events: started.events };
            },
          };
          return { rpc: { sync: rpc.sync, shell }, sync: "none" as const, close };
        },
      };
      const workspace = new Workspace({ storage, backends: [direct, command] });
      inner.attach({
        db: workspace.db,
        fs: workspace.fs,
        now: Date.now,
        git: () => workspace.git,
        artifacts: () => workspace.artifacts,
      });
      await expect(workspace.runtime.exec("x", { backend: "direct", id: "mine" })).rejects.toMatchObject({
        code: "EEXEC_ID",
        message: "backend ran exec as not-yours, not the requested id mine",
      });
      expect(canceled).toBe(1);
      await expect(workspace.runtime.exec("true", { backend: "command", id: "c1" })).rejects.toThrow(
        "backend ran exec as c1-renamed, not the requested id c1",
      );
      // With no id asked for, the backend's own id is the execution's, as the original takes it.
      const own = await workspace.runtime.exec("x", { backend: "direct" });
      expect(own.id).toBe("not-yours");
      const renamed = await workspace.runtime.exec("echo hi", { backend: "command", encoding: "utf8" });
      expect(renamed.id).toMatch(/-renamed$/);
      expect(await renamed.result()).toMatchObject({ status: "completed", stdout: "hi\n" });
    });
  });

  it("takes a backend id as push(id) / pull(id), as the original does", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.pull("test-shell");
      await workspace.fs.writeFile("/by-id.txt", "x");
      expect(await workspace.push("test-shell")).toBe(1);
      expect(await backend.peer.readFile("/by-id.txt", "utf8")).toBe("x");
      await backend.peer.writeFile("/back.txt", "y");
      expect(await workspace.pull("test-shell")).toMatchObject({ applied: 1, skipped: [] });
      await expect(workspace.push("nope")).rejects.toMatchObject({ code: "ENOBACKEND" });
    });
  });

  it("indexes the mounts before the first execution, without ready()", async () => {
    await inWorkspace(async ({ storage }) => {
      let filled = 0;
      const mount = {
        strategy: "eager" as const,
        kind: "counting",
        async materialize(api: { writeFile(path: string, data: string): Promise<void> }) {
          filled += 1;
          await api.writeFile("/seed/a.txt", "seeded");
        },
      };
      const workspace = new Workspace({ storage, backends: [new FakeShellBackend()], mounts: { "/seed": mount } });
      expect([...workspace.mounts().keys()]).toEqual(["/seed"]);
      // Without a mode of its own, it is listed as a view with the default it was indexed with.
      const listed = workspace.mounts().get("/seed");
      expect(listed).not.toBe(mount);
      expect(listed).toMatchObject({ strategy: "eager", kind: "counting", mode: "read-only" });
      expect(Object.getPrototypeOf(listed)).toBe(mount);
      // One that sets kind and mode, as the original's type demands, is listed as itself.
      const full = { ...mount, kind: "full", mode: "read-write" as const };
      const other = new Workspace({
        storage,
        mounts: { "/full": full, "/bare": { strategy: "eager", async materialize() {} } },
      });
      expect(other.mounts().get("/full")).toBe(full);
      expect(other.mounts().get("/bare")).toMatchObject({ kind: "custom", mode: "read-only" });
      expect(filled).toBe(0);
      const result = await (await workspace.runtime.exec("echo hi", utf8)).result();
      expect(result.exitCode).toBe(0);
      expect(filled).toBe(1);
      expect(await workspace.fs.readFile("/seed/a.txt", "utf8")).toBe("seeded");
      await workspace.ensureMountsIndexed();
      await workspace.ready();
      expect(filled).toBe(1);
    });
  });

  it("routes by id between two backends", async () => {
    await inWorkspace(async ({ storage }) => {
      const second = new FakeShellBackend({ id: "other-shell" });
      const workspace = new Workspace({ storage, backends: [new FakeShellBackend(), second] });
      const handle = await workspace.runtime.exec("echo there", { backend: "other-shell", encoding: "utf8" });
      expect(handle.backend).toBe("other-shell");
      expect((await handle.result()).stdout).toBe("there\n");
      expect(second.calls["shell.exec"]).toBe(1);
      await workspace.close();
      await expect(workspace.runtime.exec("echo")).rejects.toMatchObject({ code: "ECLOSED" });
    });
  });
});

describe("the handle", () => {
  it("(12) result() after reading started throws, and reading after result() errors", async () => {
    await inWorkspace(async ({ workspace }) => {
      const streamed = await workspace.runtime.exec("echo a; echo b", utf8);
      const reader = streamed.getReader();
      expect((await reader.read()).value).toMatchObject({ name: "stdout", value: "a\n", seq: 1 });
      expect(() => streamed.result()).toThrow(/result\(\) cannot be called after reading the stream started/);
      await reader.cancel();

      const collected = await workspace.runtime.exec("echo a", utf8);
      const result = collected.result();
      await expect(collected.getReader().read()).rejects.toThrow(/cannot be read after result\(\)/);
      expect((await result).stdout).toBe("a\n");
    });
  });

  it("(13) decodes UTF-8 split across events, stdout and stderr independently", async () => {
    await inWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec(
        "printf '\\xe2\\x82'; printf '\\xe2' >&2; printf '\\xac'; printf '\\x82\\xac' >&2",
        utf8,
      );
      const result = await handle.result();
      expect(result.stdout).toBe("€");
      expect(result.stderr).toBe("€");
    });
  });

  it("streams events in seq order ending with exit", async () => {
    await inWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec("echo out; echo err >&2; exit 4", utf8);
      const events = [];
      for await (const event of handle) events.push(event);
      expect(events.map((event) => event.name)).toEqual(["stdout", "stderr", "exit"]);
      expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(events[2]).toMatchObject({ code: 4 });
    });
  });

  it("kills a running command (SIGTERM → 143, cancelled) and reattaches with getExec", async () => {
    await inWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec("echo started; sleep 30", { id: "long", encoding: "utf8" });
      const reader = handle.getReader();
      expect((await reader.read()).value).toMatchObject({ value: "started\n" });
      await workspace.runtime.killExec("long");
      const rest = [];
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        rest.push(next.value);
      }
      expect(rest.at(-1)).toMatchObject({ name: "exit", code: 143 });

      const replay = await workspace.runtime.getExec("long", utf8);
      expect(await replay.result()).toMatchObject({ status: "cancelled", exitCode: 143, stdout: "started\n" });
      const tail = await workspace.runtime.getExec("long", { resume: "tail" });
      const tailEvents = [];
      for await (const event of tail) tailEvents.push(event);
      expect(tailEvents).toEqual([]);
    });
  });

  it("result() of a resumed handle replays the whole execution", async () => {
    await inWorkspace(async ({ workspace }) => {
      await (await workspace.runtime.exec("echo one; echo two", { id: "r" })).result();
      const resumed = await workspace.runtime.getExec("r", { resume: 1, encoding: "utf8" });
      expect((await resumed.result()).stdout).toBe("one\ntwo\n");
      const suffix = await workspace.runtime.getExec("r", { resume: 1, encoding: "utf8" });
      const events = [];
      for await (const event of suffix) events.push(event);
      expect(events.map((event) => event.seq)).toEqual([2, 3]);
    });
  });

  it("reuses an id after its exit, disposes, and answers ENOENT afterwards", async () => {
    await inWorkspace(async ({ workspace }) => {
      await (await workspace.runtime.exec("echo 1", { id: "same" })).result();
      const again = await (await workspace.runtime.exec("echo 2", { id: "same", encoding: "utf8" })).result();
      expect(again.stdout).toBe("2\n");
      await workspace.runtime.disposeExec("same");
      await expect(workspace.runtime.getExec("same")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });
});

describe("runtime fencing (6, 23)", () => {
  it("(23) after the runtime is replaced, old ids are EEXEC_LOST even from a new Workspace, and nothing is sent", async () => {
    await inWorkspace(async ({ workspace, backend, reopen }) => {
      await (await workspace.runtime.exec("echo old", { id: "old" })).result();
      await backend.replaceRuntime();
      const next = reopen();
      const before = { ...backend.calls };
      for (const call of [
        () => next.runtime.getExec("old"),
        () => next.runtime.killExec("old"),
        () => next.runtime.disposeExec("old"),
      ]) {
        await expect(call()).rejects.toMatchObject({
          name: "WorkspaceExecutionLostError",
          code: "EEXEC_LOST",
          message: 'Execution "old" was lost when its container runtime was replaced.',
        });
      }
      expect(backend.calls["shell.getExec"]).toBe(before["shell.getExec"]);
      expect(backend.calls["shell.killExec"]).toBe(before["shell.killExec"]);
      expect(backend.calls["shell.disposeExec"]).toBe(before["shell.disposeExec"]);

      // The id is free for a new run on the new runtime, which is then fenced to it.
      const fresh = await (await next.runtime.exec("echo new", { id: "old", encoding: "utf8" })).result();
      expect(fresh.stdout).toBe("new\n");
      expect((await (await next.runtime.getExec("old", utf8)).result()).stdout).toBe("new\n");
    });
  });

  it("a post-pull on a replaced runtime is pending, not applied", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      const handle = await workspace.runtime.exec("echo a > /workspace/a; sleep 30", { id: "gone" });
      const reader = handle.getReader();
      const replaced = backend.replaceRuntime();
      for (;;) if ((await reader.read()).done) break;
      await replaced;
      await expect(workspace.runtime.getExec("gone")).rejects.toMatchObject({ code: "EEXEC_LOST" });
    });
  });
});

describe("ready and close", () => {
  it("ready(id) connects ahead of the first call; ready() alone does not", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.ready();
      expect(backend.calls.connect).toBe(0);
      await workspace.ready("test-shell");
      expect(backend.calls.connect).toBe(1);
      await workspace.ready({ all: true });
      expect(backend.calls.connect).toBe(1);
      await expect(workspace.ready("nope")).rejects.toMatchObject({ code: "ENOBACKEND" });
    });
  });

  it("indexes mounts once and marks read-only roots", async () => {
    await inWorkspace(async ({ storage }) => {
      let indexed = 0;
      const workspace = new Workspace({
        storage,
        mounts: {
          "/workspace/docs": {
            strategy: "eager",
            kind: "test",
            materialize: async (context) => {
              indexed++;
              await context.writeFile("/workspace/docs/readme.md", "# hi");
            },
          },
        },
      });
      await workspace.ready();
      await workspace.ready();
      expect(indexed).toBe(1);
      expect(await workspace.fs.readFile("/workspace/docs/readme.md", "utf8")).toBe("# hi");
      await expect(workspace.fs.writeFile("/workspace/docs/new.md", "x")).rejects.toMatchObject({ code: "EROFS" });
    });
  });
});

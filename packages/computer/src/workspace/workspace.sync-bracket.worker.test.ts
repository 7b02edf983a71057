/**
 * The runtime's sync bracket around a command backend (push before, pull
 * after) and its pending retries, on a real Workspace in a Durable Object;
 * the rest of the runtime's surface is in workspace.runtime.worker.test.ts.
 */
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../test/workspace-harness.worker.js";

const utf8 = { encoding: "utf8" } as const;

describe("the sync bracket", () => {
  it("(3) a host write is visible to the command, and its writes are in ws.fs once result() resolves", async () => {
    await inWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/a.txt", "from host");
      const handle = await workspace.runtime.exec("cat a.txt; echo from command > b.txt", {
        cwd: "/workspace",
        encoding: "utf8",
      });
      const result = await handle.result();
      expect(result).toMatchObject({ status: "completed", stdout: "from host" });
      expect(result.pushed).toBeGreaterThan(0);
      expect(result.pulled).toBeGreaterThan(0);
      expect(result.sync).toEqual({ status: "complete", applied: result.pulled, skipped: [] });
      expect(await workspace.fs.readFile("/workspace/b.txt", "utf8")).toBe("from command\n");

      // Nothing changed since: the next run pushes and pulls nothing.
      const idle = await (await workspace.runtime.exec("true")).result();
      expect(idle).toMatchObject({ pushed: 0, pulled: 0 });
    });
  });

  it("pulls before the stream closes when the handle is streamed", async () => {
    await inWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec("echo x > /workspace/streamed.txt");
      for await (const _event of handle);
      expect(await workspace.fs.readFile("/workspace/streamed.txt", "utf8")).toBe("x\n");
    });
  });

  it("(4) a pre-exec push that still fails after its retry rejects, and spawn is never called", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.fs.writeFile("/note.txt", "n");
      backend.failNext("sync.push", "transport", 2);
      await expect(workspace.runtime.exec("echo hi")).rejects.toThrow(/failed after 1 reconnect retry/);
      expect(backend.calls["shell.exec"]).toBe(0);
      expect(backend.calls.connect).toBe(2);
    });
  });

  it("(4) one pre-exec push failure is retried on a new connection: push and spawn both repeat there", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.fs.writeFile("/note.txt", "n");
      backend.failNext("sync.push", "transport");
      const result = await (await workspace.runtime.exec("cat /note.txt", utf8)).result();
      expect(result).toMatchObject({ status: "completed", stdout: "n" });
      expect(backend.calls["shell.exec"]).toBe(1);
      expect(backend.calls.connect).toBe(2);
    });
  });

  it("(19) a disposed-stub spawn is replayed once; an ambiguous spawn failure is not", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      backend.failNext("shell.exec", "disposed");
      expect((await (await workspace.runtime.exec("echo once", utf8)).result()).stdout).toBe("once\n");
      expect(backend.calls["shell.exec"]).toBe(2);

      backend.failNext("shell.exec", "transport");
      await expect(workspace.runtime.exec("echo maybe")).rejects.toThrow(
        /shell\.exec transport failed; the command may have started and was not replayed/,
      );
      expect(backend.calls["shell.exec"]).toBe(3);
    });
  });

  it("(5) a failed post-pull keeps the exit, reports pending and stores one intent", async () => {
    await inWorkspace(async ({ workspace, backend, scheduler }) => {
      await (await workspace.runtime.exec("true")).result();
      backend.failNext("sync.fetchChanges", new Error("disk on fire; token=abc"));
      const result = await (await workspace.runtime.exec("echo data > /workspace/late.txt; exit 2")).result();
      expect(result).toMatchObject({ status: "failed", exitCode: 2, pulled: 0 });
      expect(result.sync).toMatchObject({ status: "pending", applied: 0, backend: "test-shell" });
      if (result.sync.status !== "pending") throw new Error("expected pending");
      expect(result.sync.error).toContain("disk on fire");
      expect(result.sync.error).not.toContain("abc");
      expect(result.sync.runtimeId).toBe(backend.runtimeId);
      const intent = await scheduler.get("test-shell");
      expect(intent).toMatchObject({ backend: "test-shell", attempt: 1, runtimeId: backend.runtimeId });
      await expect(workspace.fs.stat("/workspace/late.txt")).rejects.toMatchObject({ code: "ENOENT" });

      // The retry brings the file.
      expect(await workspace.retryPendingSync()).toMatchObject({ status: "complete", backend: "test-shell" });
      expect(await workspace.fs.readFile("/workspace/late.txt", "utf8")).toBe("data\n");
      expect(await scheduler.get("test-shell")).toBeUndefined();
    });
  });

  it("(5) without a scheduler a failed post-pull is still reported, not thrown", async () => {
    await inWorkspace(
      async ({ workspace, backend }) => {
        backend.failNext("sync.fetchChanges", new Error("nope"));
        const result = await (await workspace.runtime.exec("echo ok", utf8)).result();
        expect(result).toMatchObject({ status: "completed", stdout: "ok\n", sync: { status: "pending" } });
        await expect(workspace.retryPendingSync()).rejects.toMatchObject({ code: "ENOTCONFIGURED" });
      },
      { withScheduler: false },
    );
  });

  it("(20) a transport failure on push or pull reconnects once within the same call", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.pull(); // the mount point computerd-like backends create at boot
      await workspace.fs.writeFile("/p.txt", "p");
      backend.failNext("sync.push", "transport");
      expect(await workspace.push()).toBe(1);
      expect(backend.calls.connect).toBe(2);
      expect(await backend.peer.readFile("/p.txt", "utf8")).toBe("p");

      await backend.peer.writeFile("/q.txt", "q");
      backend.failNext("sync.fetchChanges", "transport");
      expect(await workspace.pull()).toMatchObject({ status: "complete", applied: 1 });
      expect(backend.calls.connect).toBe(3);
      expect(await workspace.fs.readFile("/q.txt", "utf8")).toBe("q");
    });
  });

  it("(20) a non-transport error is thrown as is and keeps the connection", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.pull();
      backend.failNext("sync.fetchChanges", new Error("EUNKNOWN_HASH: unknown object hash"));
      await expect(workspace.pull()).rejects.toThrow(/EUNKNOWN_HASH/);
      await workspace.pull();
      expect(backend.calls.connect).toBe(1);
    });
  });

  it("pulls in bounded batches", async () => {
    await inWorkspace(async ({ workspace, backend }) => {
      await workspace.pull();
      for (let i = 0; i < 5; i++) await backend.peer.writeFile(`/f${i}`, `${i}`);
      const first = await workspace.pull({ batch: { maxEntries: 2, maxBytes: 1 << 20 } });
      expect(first).toMatchObject({ status: "pending", applied: 2 });
      expect(await workspace.pull({ batch: true })).toMatchObject({ status: "complete", applied: 3 });
    });
  });
});

describe("pending sync retries (21, 22)", () => {
  it("(21) idle without an intent; pending with backoff on failure; exhausted keeps the intent", async () => {
    let now = 1_000_000;
    await inWorkspace(
      async ({ workspace, backend, scheduler }) => {
        expect(await workspace.retryPendingSync()).toEqual({ status: "idle", backend: "test-shell" });
        await scheduler.schedule({ backend: "test-shell", attempt: 1, notBefore: now });
        backend.failAll("sync.fetchChanges", new Error("still broken"));
        const second = await workspace.retryPendingSync();
        expect(second).toMatchObject({ status: "pending", attempt: 2, notBefore: now + 2000 });
        for (const attempt of [3, 4, 5]) {
          expect(await workspace.retryPendingSync()).toMatchObject({ status: "pending", attempt });
        }
        expect(await workspace.retryPendingSync()).toMatchObject({ status: "exhausted", attempt: 5 });
        expect(await scheduler.get("test-shell")).toMatchObject({ attempt: 5 });

        // A stored attempt beyond the maximum is exhausted without calling the backend.
        await scheduler.schedule({ backend: "test-shell", attempt: 6, notBefore: now });
        const before = backend.calls["sync.fetchChanges"];
        expect(await workspace.retryPendingSync()).toMatchObject({
          status: "exhausted",
          attempt: 6,
          error: "pending sync retry attempts exhausted",
        });
        expect(backend.calls["sync.fetchChanges"]).toBe(before);
        backend.clearFaults();
        now += 1;
      },
      { now: () => now },
    );
  });

  it("(21) lost when the runtime named by the intent was replaced; the intent is cleared", async () => {
    await inWorkspace(async ({ workspace, backend, scheduler }) => {
      backend.failNext("sync.fetchChanges", new Error("later"));
      await (await workspace.runtime.exec("echo x > /workspace/x")).result();
      const runtimeId = backend.runtimeId;
      await backend.replaceRuntime();
      expect(await workspace.retryPendingSync()).toMatchObject({ status: "lost", runtimeId });
      expect(await scheduler.get("test-shell")).toBeUndefined();
    });
  });

  it("(21) a spent budget is progress: pending with attempt 1, until complete", async () => {
    await inWorkspace(async ({ workspace, backend, scheduler }) => {
      await workspace.pull();
      for (let i = 0; i < 5; i++) await backend.peer.writeFile(`/b${i}`, `${i}`);
      await scheduler.schedule({ backend: "test-shell", attempt: 3, notBefore: 0 });
      const budget = { maxEntries: 2, maxBytes: 1 << 20 };
      const pending = { status: "pending", attempt: 1, error: expect.stringMatching(/ran out of budget/) };
      expect(await workspace.retryPendingSync(undefined, budget)).toMatchObject(pending);
      expect(await workspace.retryPendingSync(undefined, budget)).toMatchObject(pending);
      expect(await workspace.retryPendingSync(undefined, budget)).toMatchObject({ status: "complete" });
      for (let i = 0; i < 5; i++) expect(await workspace.fs.readFile(`/b${i}`, "utf8")).toBe(`${i}`);
    });
  });

  it('(22) sync: "defer" without a scheduler throws before the spawn', async () => {
    await inWorkspace(
      async ({ workspace, backend }) => {
        await expect(workspace.runtime.exec("echo", { sync: "defer" })).rejects.toMatchObject({
          code: "ENOTCONFIGURED",
        });
        expect(backend.calls["shell.exec"]).toBe(0);
        expect(backend.calls.connect).toBe(0);
      },
      { withScheduler: false },
    );
  });

  it('(22) sync: "defer" returns pending with a settled target; the retry pulls up to it', async () => {
    await inWorkspace(async ({ workspace, backend, scheduler }) => {
      const handle = await workspace.runtime.exec("echo later > /workspace/deferred.txt", { sync: "defer" });
      const result = await handle.result();
      expect(result.sync).toMatchObject({
        status: "pending",
        applied: 0,
        backend: "test-shell",
        runtimeId: backend.runtimeId,
        targetCursor: { rev: expect.any(Number), path: null },
      });
      await expect(workspace.fs.stat("/workspace/deferred.txt")).rejects.toMatchObject({ code: "ENOENT" });
      const intent = await scheduler.get("test-shell");
      if (result.sync.status !== "pending") throw new Error("expected pending");
      expect(intent?.targetCursor).toEqual(result.sync.targetCursor);

      // A later deferred run widens the target.
      await (await workspace.runtime.exec("echo more > /workspace/more.txt", { sync: "defer" })).result();
      const widened = await scheduler.get("test-shell");
      expect(widened?.targetCursor?.rev).toBeGreaterThan(intent?.targetCursor?.rev ?? Number.POSITIVE_INFINITY);

      expect(await workspace.retryPendingSync()).toMatchObject({ status: "complete" });
      expect(await workspace.fs.readFile("/workspace/deferred.txt", "utf8")).toBe("later\n");
      expect(await workspace.fs.readFile("/workspace/more.txt", "utf8")).toBe("more\n");
    });
  });
});

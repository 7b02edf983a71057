import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { pullOnce, pushOnce, reconcileWatermarks } from "@cloudflare/dofs/sync";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BackendHandle } from "../../src/runtime/backend.js";
import { isDisposedStubError, isTransportError } from "../../src/runtime/transport.js";
import { FakeShellBackend } from "./backend.js";
import { collect, contextFor, exitCode, output } from "./harness.node.js";

let db: ReturnType<typeof openNodeDatabase>;
let fs: WorkspaceFilesystem;
let backend: FakeShellBackend;
const local = () => ({ db, peer: "test-shell" });

beforeEach(async () => {
  db = openNodeDatabase();
  fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/workspace");
  backend = new FakeShellBackend();
  backend.attach(contextFor(db));
});
afterEach(() => {
  backend.runner.dispose();
  db.close();
});

async function run(handle: BackendHandle, source: string, id = crypto.randomUUID()) {
  const events = await collect((await handle.rpc.shell.exec({ source, id })).events);
  return { stdout: output(events, "stdout"), stderr: output(events, "stderr"), code: exitCode(events) };
}

function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("FakeShellBackend", () => {
  it("is a command backend named test-shell of type test", () => {
    expect([backend.kind, backend.id, backend.type]).toEqual(["command", "test-shell", "test"]);
    expect(new FakeShellBackend({ id: "other" }).id).toBe("other");
  });

  it("needs attach() or a database before it can serve", async () => {
    await expect(new FakeShellBackend().connect()).rejects.toThrow(/attach/);
  });

  it("round-trips files with the real sync protocol: push, command, pull", async () => {
    await fs.writeFile("/workspace/in.txt", "hello");
    const handle = await backend.connect();
    expect(handle.sync).toBe("remote");
    await reconcileWatermarks(local(), handle.rpc.sync);
    expect(await pushOnce(local(), handle.rpc.sync)).toBeGreaterThan(0);
    const result = await run(handle, "cat in.txt; cat in.txt > out.txt; echo ' world' >> out.txt; rm in.txt");
    expect(result).toEqual({ stdout: "hello", stderr: "", code: 0 });
    expect(await backend.peer.readFile("/workspace/out.txt", "utf8")).toBe("hello world\n");
    const pulled = await pullOnce(local(), handle.rpc.sync);
    expect(pulled.applied).toBeGreaterThan(0);
    expect(await fs.readFile("/workspace/out.txt", "utf8")).toBe("hello world\n");
    await expect(fs.stat("/workspace/in.txt")).rejects.toThrow(/ENOENT/);
    // Nothing echoes back on the next round.
    expect(await pushOnce(local(), handle.rpc.sync)).toBe(0);
  });

  it("shares one runtime id between connects until the runtime is replaced", async () => {
    const a = await backend.connect();
    const b = await backend.connect();
    expect(a.runtimeId).toBe(b.runtimeId);
    expect(backend.runtimeId).toBe(a.runtimeId);
  });

  it("replaceRuntime: new id, empty store, killed execs, closed handles, dropped tables", async () => {
    await fs.writeFile("/workspace/f", "1");
    const handle = await backend.connect();
    await reconcileWatermarks(local(), handle.rpc.sync);
    await pushOnce(local(), handle.rpc.sync);
    const exec = await handle.rpc.shell.exec({ source: "sleep 10", id: "long" });
    const reading = collect(exec.events);
    const oldTables = tables().filter((name) => name.includes("tb_test_shell_0_"));
    expect(oldTables.length).toBeGreaterThan(0);

    backend.replaceRuntime();
    await handle.closed;
    // The stream still ends with the kill's exit, so the runtime goes on to a (fenced) post-pull.
    expect(exitCode(await reading)).toBe(137);
    expect(isDisposedStubError(await failure(handle.rpc.sync.watermarks()))).toBe(true);
    expect(tables().filter((name) => name.includes("tb_test_shell_0_"))).toEqual([]);

    const next = await backend.connect();
    expect(next.runtimeId).not.toBe(handle.runtimeId);
    expect((await backend.peer.readdir("/")).map((entry) => entry.name)).toEqual(["workspace"]);
    expect(backend.runner.running).toEqual([]);
    const lost = await failure(next.rpc.shell.getExec({ id: "long" }));
    expect((lost as { code?: string }).code).toBe("ENOENT");
    // The runtime's reconnect path: reconcile sees a new replica, and the next push sends everything again.
    await reconcileWatermarks(local(), next.rpc.sync);
    await pushOnce(local(), next.rpc.sync);
    expect((await run(next, "cat f")).stdout).toBe("1");
  });

  it("an exec stream errors as on a dead socket when its handle is closed; the exec keeps running", async () => {
    const handle = await backend.connect();
    await reconcileWatermarks(local(), handle.rpc.sync);
    await pushOnce(local(), handle.rpc.sync);
    const exec = await handle.rpc.shell.exec({ source: "sleep 0.05; echo done", id: "bg" });
    const reading = collect(exec.events);
    await handle.close();
    expect(isTransportError(await failure(reading))).toBe(true);
    const again = await backend.connect();
    const events = await collect((await again.rpc.shell.getExec({ id: "bg" })).events);
    expect(output(events, "stdout")).toBe("done\n");
  });

  it("injects faults per op, in order, and counts every call", async () => {
    backend.failNext("connect", "transport");
    const connectError = await failure(backend.connect());
    expect(connectError).toBeInstanceOf(Error);
    expect((connectError as Error).message).toMatch(/WebSocket is closed/);
    expect(isTransportError(connectError)).toBe(true);
    const handle = await backend.connect();
    expect(backend.calls.connect).toBe(2);

    const mine = new Error("boom");
    backend.failNext("sync.watermarks", mine, 2);
    backend.failNext("sync.watermarks", "disposed");
    expect(await failure(handle.rpc.sync.watermarks())).toBe(mine);
    expect(await failure(handle.rpc.sync.watermarks())).toBe(mine);
    const disposed = await failure(handle.rpc.sync.watermarks());
    expect((disposed as Error).message).toBe("Attempted to use RPC stub after it has been disposed.");
    expect(isDisposedStubError(disposed)).toBe(true);
    await expect(handle.rpc.sync.watermarks()).resolves.toMatchObject({ currentRev: expect.any(Number) });
    expect(backend.calls["sync.watermarks"]).toBe(4);
    expect(backend.calls["shell.exec"]).toBe(0);
  });

  it("failAll fails until clearFaults; a non-transport fault leaves the handle usable", async () => {
    const handle = await backend.connect();
    backend.failAll("shell.exec", new Error("no spawn"));
    for (let i = 0; i < 3; i++)
      await expect(handle.rpc.shell.exec({ source: "true", id: `x${i}` })).rejects.toThrow("no spawn");
    expect(backend.runner.running).toEqual([]);
    backend.clearFaults();
    // A missing cwd is computerd's spawn failure; the mount point itself exists from boot.
    const missing = await collect(
      (await handle.rpc.shell.exec({ source: "echo ok", id: "cwd", cwd: "/nowhere" })).events,
    );
    expect(exitCode(missing)).toBe(-1);
    expect((await run(handle, "echo ok")).stdout).toBe("ok\n");
    expect(backend.calls["shell.exec"]).toBe(5);
  });

  it("a transport fault kills its handle: closed settles and later calls fail the same way", async () => {
    const handle = await backend.connect();
    backend.failNext("sync.push", "transport");
    const stream = new ReadableStream({ start: (controller) => controller.close() });
    expect(isTransportError(await failure(handle.rpc.sync.push({ senderRev: 0, changes: stream })))).toBe(true);
    await handle.closed;
    expect(isTransportError(await failure(handle.rpc.sync.watermarks()))).toBe(true);
    // The counter saw the call that failed, not the one refused by the dead handle.
    expect(backend.calls["sync.watermarks"]).toBe(0);
    await expect((await backend.connect()).rpc.sync.watermarks()).resolves.toBeDefined();
  });

  it("rejects unknown ops and bad counts", () => {
    expect(() => backend.failNext("shell.spawn" as never, "transport")).toThrow(TypeError);
    expect(() => backend.failNext("connect", "transport", 0)).toThrow(TypeError);
  });

  it("uses options.database once per runtime", async () => {
    const opened: ReturnType<typeof openNodeDatabase>[] = [];
    const own = new FakeShellBackend({
      id: "own",
      database: () => {
        const next = openNodeDatabase();
        opened.push(next);
        return next;
      },
    });
    await own.peer.writeFile("/x", "1");
    expect(opened.length).toBe(1);
    own.replaceRuntime();
    expect((await own.peer.readdir("/")).map((entry) => entry.name)).toEqual(["workspace"]);
    expect(opened.length).toBe(2);
    own.runner.dispose();
    for (const each of opened) each.close();
  });

  it("keeps two backends on one database apart, and a new instance drops an old one's tables", async () => {
    const other = new FakeShellBackend({ id: "test-other" });
    other.attach(contextFor(db));
    await backend.peer.writeFile("/mine", "1");
    await other.peer.writeFile("/theirs", "2");
    expect((await backend.peer.readdir("/")).map((entry) => entry.name)).toEqual(["mine", "workspace"]);
    backend.replaceRuntime();
    await backend.peer.writeFile("/gen1", "1");
    // A new object for the same id (an evicted Durable Object coming back) starts from an empty store.
    const reborn = new FakeShellBackend();
    reborn.attach(contextFor(db));
    expect((await reborn.peer.readdir("/")).map((entry) => entry.name)).toEqual(["workspace"]);
    expect(tables().some((name) => name.includes("tb_test_shell_1_"))).toBe(false);
    expect((await other.peer.readdir("/")).map((entry) => entry.name)).toEqual(["theirs", "workspace"]);
    other.runner.dispose();
    reborn.runner.dispose();
  });
});

function tables(): string[] {
  return db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => row.name);
}
